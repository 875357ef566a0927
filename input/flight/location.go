package flight

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// target is where one endpoint's ticket must be fetched.
type target struct {
	useFE bool
	addr  string // host:port, when !useFE
	tls   bool   // advertised grpc+tls by parseLocation; dialled with TLS after endpointTarget
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

// endpointTarget chooses the connection for an endpoint: its first location,
// or the FE connection when it has none or names the FE itself.
func (c *Client) endpointTarget(ep *flight.FlightEndpoint) (target, error) {
	if len(ep.GetLocation()) == 0 {
		return target{useFE: true}, nil
	}
	t, err := parseLocation(ep.GetLocation()[0].GetUri())
	if err != nil {
		return target{}, err
	}
	if !t.useFE && strings.EqualFold(t.addr, c.cfg.Addr) {
		t.useFE = true
	}
	if t.useFE {
		return t, nil
	}
	return c.transportFor(t)
}

// transportFor applies the TLS policy to an advertised endpoint: with TLS
// configured every endpoint is dialled with TLS, whatever its scheme, unless
// AllowPlaintextEndpoints keeps grpc+tcp in plaintext; without TLS a
// grpc+tls endpoint is refused rather than dialled without verification.
func (c *Client) transportFor(t target) (target, error) {
	switch {
	case c.cfg.TLS == nil && t.tls:
		return target{}, fmt.Errorf("endpoint %s asks for TLS (grpc+tls) but no TLS is configured", t.addr)
	case c.cfg.TLS != nil && !t.tls && !c.cfg.AllowPlaintextEndpoints:
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

// conn returns the connection for t, dialing and caching endpoint
// connections. grpc.NewClient connects lazily, so the caller's context bounds
// the connect through the DoGet that follows.
func (c *Client) conn(t target) (*grpc.ClientConn, error) {
	if t.useFE {
		return c.fe, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("doris flight sql client is closed")
	}
	if cc, ok := c.be[t.key()]; ok {
		return cc, nil
	}
	tlsConf := c.cfg.TLS
	if !t.tls {
		tlsConf = nil
	}
	cc, err := grpc.NewClient(t.addr, dialOptions(tlsConf, c.cfg.ConnectTimeout)...)
	if err != nil {
		return nil, fmt.Errorf("dial endpoint %s: %w", t.addr, err)
	}
	c.be[t.key()] = cc
	return cc, nil
}
