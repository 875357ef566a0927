package flight

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// target is where one endpoint's ticket must be fetched.
type target struct {
	useFE bool
	addr  string // host:port, when !useFE
	tls   bool   // advertised grpc+tls by parseLocation; dialled with TLS after endpoints.target
	// upgraded: advertised grpc+tcp, dialled with TLS because TLS is
	// configured; a failure then hints at allow_plaintext_endpoints.
	upgraded bool
}

// key identifies a cached endpoint connection.
func (t target) key() string {
	if t.tls {
		return "tls/" + t.addr
	}
	return "tcp/" + t.addr
}

// parseLocation maps a Flight location URI to a dial target. Doris advertises
// grpc+tcp:// (grpc+tls:// with TLS) on the result BE; FE-answered results
// point at the FE itself.
func parseLocation(uri string) (target, error) {
	uri = strings.TrimSpace(uri)
	if uri == "" || uri == flight.LocationReuseConnection {
		return target{useFE: true}, nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return target{}, fmt.Errorf("endpoint location %q: %w", uri, err)
	}
	var t target
	switch strings.ToLower(u.Scheme) {
	case "grpc+tcp", "grpc":
	case "grpc+tls":
		t.tls = true
	case "arrow-flight-reuse-connection":
		return target{useFE: true}, nil
	default:
		return target{}, fmt.Errorf("endpoint location %q: unsupported scheme %q", uri, u.Scheme)
	}
	if u.Host == "" || u.Port() == "" {
		return target{}, fmt.Errorf("endpoint location %q: missing host or port", uri)
	}
	t.addr = u.Host
	return t, nil
}

// endpoints holds a client's connections to the endpoints it fetches
// results from (the result BEs), one per scheme and address, and applies
// the TLS policy to what they advertise.
type endpoints struct {
	fe             string      // the FE's address: an endpoint naming it reuses the FE connection
	tls            *tls.Config // nil: plaintext
	allowPlain     bool        // AllowPlaintextEndpoints
	connectTimeout time.Duration

	mu     sync.Mutex
	conns  map[string]*grpc.ClientConn // by target.key
	closed bool
}

func newEndpoints(cfg Config) *endpoints {
	return &endpoints{fe: cfg.Addr, tls: cfg.TLS, allowPlain: cfg.AllowPlaintextEndpoints, connectTimeout: cfg.ConnectTimeout,
		conns: map[string]*grpc.ClientConn{}}
}

// target chooses the connection for an endpoint: its first location, or
// the FE connection when it has none or names the FE itself.
func (e *endpoints) target(ep *flight.FlightEndpoint) (target, error) {
	if len(ep.GetLocation()) == 0 {
		return target{useFE: true}, nil
	}
	t, err := parseLocation(ep.GetLocation()[0].GetUri())
	if err != nil {
		return target{}, err
	}
	if !t.useFE && strings.EqualFold(t.addr, e.fe) {
		t.useFE = true
	}
	if t.useFE {
		return t, nil
	}
	return e.policy(t)
}

// policy applies the TLS policy to an advertised endpoint: with TLS
// configured every endpoint is dialled with TLS, whatever its scheme, unless
// AllowPlaintextEndpoints keeps grpc+tcp in plaintext; without TLS a
// grpc+tls endpoint is refused rather than dialled without verification.
func (e *endpoints) policy(t target) (target, error) {
	switch {
	case e.tls == nil && t.tls:
		return target{}, fmt.Errorf("endpoint %s asks for TLS (grpc+tls) but no TLS is configured", t.addr)
	case e.tls != nil && !t.tls && !e.allowPlain:
		t.tls, t.upgraded = true, true
	}
	return t, nil
}

// upgradeHint explains a failed fetch from an endpoint that advertised
// grpc+tcp but was dialled with TLS: it may really serve plaintext.
func upgradeHint(t target, err error) error {
	if !t.upgraded || status.Code(err) != codes.Unavailable {
		return err
	}
	return fmt.Errorf("%w (the endpoint is advertised as grpc+tcp://%s and was dialled with TLS because tls is enabled; "+
		"if it serves only plaintext, set allow_plaintext_endpoints: true to send the bearer token and rows to it unencrypted)", err, t.addr)
}

// conn returns the connection for an endpoint target (not the FE's),
// dialing it the first time. grpc.NewClient connects lazily, so the
// caller's context bounds the connect through the DoGet that follows.
func (e *endpoints) conn(t target) (*grpc.ClientConn, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("doris flight sql client is closed")
	}
	if cc, ok := e.conns[t.key()]; ok {
		return cc, nil
	}
	tlsConf := e.tls
	if !t.tls {
		tlsConf = nil
	}
	cc, err := grpc.NewClient(t.addr, dialOptions(tlsConf, e.connectTimeout)...)
	if err != nil {
		return nil, fmt.Errorf("dial endpoint %s: %w", t.addr, err)
	}
	e.conns[t.key()] = cc
	return cc, nil
}

// close closes every endpoint connection; later conn calls fail.
func (e *endpoints) close() error {
	e.mu.Lock()
	conns := e.conns
	e.conns, e.closed = nil, true
	e.mu.Unlock()
	var errs []error
	for key, conn := range conns {
		if err := conn.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close endpoint connection %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}
