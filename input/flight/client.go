// Package flight is the client's Arrow Flight SQL access to Doris: Basic
// handshake for a bearer token on the FE, Execute (GetFlightInfo) on the FE,
// DoGet of every endpoint at its advertised location, and classification of
// Doris's error shapes (window errors, expiry, authentication).
package flight

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// DefaultConnectTimeout bounds connecting and the handshake when
// Config.ConnectTimeout is zero.
const DefaultConnectTimeout = 10 * time.Second

// maxRecvMsgSize lifts gRPC's 4 MiB default: one Doris record batch of wide
// rows (long strings, JSON) easily exceeds it, and a batch cannot be split.
const maxRecvMsgSize = 512 << 20

// Config addresses one Doris FE Arrow Flight SQL endpoint.
type Config struct {
	Addr           string // host:port of the FE arrow_flight_sql_port
	Username       string
	Password       string
	TLS            *tls.Config // nil: plaintext
	ConnectTimeout time.Duration

	// AllowPlaintextEndpoints lets an endpoint advertised as grpc+tcp:// be
	// dialled in plaintext although TLS is configured. Without it such an
	// endpoint is dialled with TLS: the bearer token and the rows must not
	// travel in the clear because a proxy or public_host advertises the
	// wrong scheme.
	AllowPlaintextEndpoints bool
}

// Client is a Flight SQL session on one FE. It is safe for concurrent use.
type Client struct {
	cfg  Config
	fe   *grpc.ClientConn
	fsql *flightsql.Client

	eps *endpoints

	mu    sync.Mutex
	token string // "Bearer <token>" as the FE returned it
	// session holds the SET/USE statements run through Exec, in order, to
	// replay on the new FE session a re-handshake creates.
	session []string
	closed  bool
}

// Dial connects to the FE at cfg.Addr and authenticates with a Basic
// handshake. The connection attempt and handshake are bounded by
// cfg.ConnectTimeout.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.Addr) == "" {
		return nil, errors.New("doris flight sql: empty address")
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	conn, err := grpc.NewClient(cfg.Addr, dialOptions(cfg.TLS, cfg.ConnectTimeout)...)
	if err != nil {
		return nil, fmt.Errorf("doris flight sql at %s: %w", cfg.Addr, err)
	}
	c := &Client{
		cfg:  cfg,
		fe:   conn,
		fsql: &flightsql.Client{Client: flight.NewClientFromConn(conn, nil), Alloc: memory.DefaultAllocator},
		eps:  newEndpoints(cfg),
	}
	if err := c.authenticate(ctx); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return c, nil
}

func dialOptions(tlsConf *tls.Config, connectTimeout time.Duration) []grpc.DialOption {
	creds := insecure.NewCredentials()
	if tlsConf != nil {
		creds = credentials.NewTLS(tlsConf.Clone())
	}
	return []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.DefaultConfig,
			MinConnectTimeout: connectTimeout,
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRecvMsgSize)),
	}
}

// Addr is the FE address the client talks to.
func (c *Client) Addr() string { return c.cfg.Addr }

// authenticate runs the Basic handshake and stores the bearer the FE returns
// in its response headers.
func (c *Client) authenticate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout)
	defer cancel()
	// A fresh outgoing metadata set keeps a stale bearer in ctx from
	// travelling next to the Basic credentials.
	authCtx, err := c.fsql.Client.AuthenticateBasicToken(metadata.NewOutgoingContext(ctx, nil), c.cfg.Username, c.cfg.Password)
	if err != nil {
		return c.handshakeError(err)
	}
	md, _ := metadata.FromOutgoingContext(authCtx)
	vals := md.Get("authorization")
	if len(vals) == 0 || vals[len(vals)-1] == "" {
		return fmt.Errorf("doris flight sql at %s: handshake for user %s returned no bearer token", c.cfg.Addr, c.cfg.Username)
	}
	c.mu.Lock()
	c.token = vals[len(vals)-1]
	c.mu.Unlock()
	return nil
}

func (c *Client) handshakeError(err error) error {
	msg := c.redact(err.Error())
	switch {
	case status.Code(err) == codes.Unauthenticated:
		return &authError{msg: fmt.Sprintf("doris flight sql at %s: authentication failed for user %s: %s", c.cfg.Addr, c.cfg.Username, msg), cause: err}
	case strings.Contains(msg, "x509:") || strings.Contains(msg, "tls:"):
		return &authError{msg: fmt.Sprintf("doris flight sql at %s: TLS handshake failed (check the CA and server name): %s", c.cfg.Addr, msg), cause: err}
	default:
		return &authError{msg: fmt.Sprintf("doris flight sql at %s: handshake for user %s: %s", c.cfg.Addr, c.cfg.Username, msg), cause: err}
	}
}

// authError carries a redacted message while keeping the gRPC status
// reachable for IsUnauthenticated.
type authError struct {
	msg   string
	cause error
}

func (e *authError) Error() string { return e.msg }
func (e *authError) Unwrap() error { return e.cause }

// redact removes the password should a server ever echo it back.
func (c *Client) redact(s string) string {
	if len(c.cfg.Password) < 3 {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.Password, "******")
}

// bearerContext attaches the current bearer token to ctx.
func (c *Client) bearerContext(ctx context.Context) context.Context {
	c.mu.Lock()
	tok := c.token
	c.mu.Unlock()
	return metadata.NewOutgoingContext(ctx, metadata.Pairs("authorization", tok))
}

// Close ends the client's FE session, then closes the FE connection and
// every cached endpoint connection.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()

	c.endSession()
	errs := []error{c.eps.close()}
	if err := c.fe.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close doris flight sql connection %s: %w", c.cfg.Addr, err))
	}
	return errors.Join(errs...)
}

// closeSessionTimeout bounds the CloseSession sent at Close.
const closeSessionTimeout = 2 * time.Second

// endSession sends CloseSession for the client's bearer. Doris counts a
// Flight session against the user's max_user_connections until
// CloseSession, KILL or wait_timeout (8 h by default) ends it: a client
// that only dropped its connection would keep its slot taken, and a
// pipeline restarted a few times would lock its user out. It is best
// effort: an FE that does not serve CloseSession (older releases) or does
// not answer within closeSessionTimeout still has its connection closed.
func (c *Client) endSession() {
	ctx, cancel := context.WithTimeout(context.Background(), min(c.cfg.ConnectTimeout, closeSessionTimeout))
	defer cancel()
	_, _ = c.fsql.CloseSession(c.bearerContext(ctx), &flight.CloseSessionRequest{})
}
