package flight

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
)

// target is where one endpoint's ticket must be fetched.
type target struct {
	useFE bool
	addr  string // host:port, when !useFE
	tls   bool
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
	return t, nil
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
	if t.tls && c.cfg.TLS == nil {
		return nil, fmt.Errorf("endpoint %s asks for TLS (grpc+tls) but no TLS is configured", t.addr)
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
