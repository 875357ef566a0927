// Package doris is the client side of the Doris FE: REST calls (TSO,
// statements, schema, query plan), SQL builders and quoting, strict
// timestamps, snapshot split planning and the offset-table publisher.
package doris

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

const (
	defaultRetries        = 3
	defaultConnectTimeout = 60 * time.Second
	defaultReadTimeout    = 60 * time.Second
	defaultBackoffBase    = 200 * time.Millisecond
	defaultBackoffMax     = 5 * time.Second
)

// ClientConfig configures a Client.
type ClientConfig struct {
	FENodes            []string // host:port
	Username, Password string
	TLS                *tls.Config // nil: http
	Retries            int         // attempts in total per call; 0 means 3
	ConnectTimeout     time.Duration
	ReadTimeout        time.Duration
	Logger             *service.Logger // may be nil
}

// Client talks to the FE HTTP API of a Doris cluster.
//
// Retry policy: each call makes at most Retries attempts. Attempt i goes to
// FE (start+i) mod n of an order shuffled once at construction, where start is
// the FE that last answered, so a healthy FE keeps serving and Host() stays
// stable. Between attempts the client sleeps an exponential, jittered backoff
// (200ms doubling, capped at 5s) that honours ctx. Transport errors, 5xx, 408,
// 429 and unparsable bodies are retried because another FE (or a moment
// later) may answer; 401/403 and other 4xx, and Doris errors reported with
// code != 0 on statements, are returned at once because they repeat on every
// FE.
type Client struct {
	fes      *FERotation
	user     string
	password string
	scheme   string
	retries  int
	readTO   time.Duration
	hc       *http.Client
	log      *service.Logger

	backoffBase time.Duration
	backoffMax  time.Duration
}

// NewClient validates cfg and builds a Client.
func NewClient(cfg ClientConfig) (*Client, error) {
	if len(cfg.FENodes) == 0 {
		return nil, errors.New("doris client: no FE nodes configured")
	}
	fes := make([]string, 0, len(cfg.FENodes))
	for _, fe := range cfg.FENodes {
		node, err := parseHostPort(fe)
		if err != nil {
			return nil, fmt.Errorf("doris client: FE node %q: %w", fe, err)
		}
		fes = append(fes, node)
	}
	if cfg.Retries < 0 {
		return nil, fmt.Errorf("doris client: retries must not be negative, got %d", cfg.Retries)
	}
	if cfg.ConnectTimeout < 0 || cfg.ReadTimeout < 0 {
		return nil, errors.New("doris client: timeouts must not be negative")
	}
	rand.Shuffle(len(fes), func(i, j int) { fes[i], fes[j] = fes[j], fes[i] })
	c := &Client{
		fes:         NewFERotation(fes),
		user:        cfg.Username,
		password:    cfg.Password,
		scheme:      "http",
		retries:     orDefault(cfg.Retries, defaultRetries),
		readTO:      orDefault(cfg.ReadTimeout, defaultReadTimeout),
		log:         cfg.Logger,
		backoffBase: defaultBackoffBase,
		backoffMax:  defaultBackoffMax,
	}
	if cfg.TLS != nil {
		c.scheme = "https"
	}
	c.hc = newHTTPClient(cfg.TLS, orDefault(cfg.ConnectTimeout, defaultConnectTimeout), c.readTO)
	return c, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

func newHTTPClient(tlsConf *tls.Config, connectTO, readTO time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: connectTO, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   connectTO,
		ResponseHeaderTimeout: readTO,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     false,
	}
	if tlsConf != nil {
		tr.TLSClientConfig = tlsConf.Clone()
	}
	// Redirects would resend Basic credentials to another host; the FE
	// endpoints used here never redirect.
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Host returns the host (without port) of the FE that last answered, or of
// the first FE tried when none has answered yet.
func (c *Client) Host() string {
	host, _, _ := net.SplitHostPort(c.feAt(0))
	return host
}

// Close releases idle connections.
func (c *Client) Close() {
	c.hc.CloseIdleConnections()
}

func (c *Client) feAt(attempt int) string { return c.fes.At(c.fes.Start(), attempt) }

func (c *Client) markGood(fe string) { c.fes.MarkGood(fe) }

// withRetry runs fn against successive FEs until it succeeds, returns a
// permanent error, the attempts are used up or ctx ends.
func (c *Client) withRetry(ctx context.Context, op string, fn func(ctx context.Context, fe string) error) error {
	var last error
	start := c.fes.Start()
	for i := range c.retries {
		if i > 0 {
			if err := c.sleep(ctx, i); err != nil {
				return fmt.Errorf("%s: %w (last error: %w)", op, err, last)
			}
		}
		fe := c.fes.At(start, i)
		err := fn(ctx, fe)
		if err == nil {
			c.markGood(fe)
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			// The attempt may have failed on its own just as ctx ended; the
			// caller asked to stop, so that is what the error must say.
			return fmt.Errorf("%s: %w (last error: %w)", op, ctxErr, err)
		}
		if !isRetryable(err) {
			return err
		}
		last = err
		// The caller reports the incident once; each attempt is detail.
		c.log.Debugf("Doris %s attempt %d/%d failed: %v", op, i+1, c.retries, err)
	}
	return fmt.Errorf("%s failed after %d attempts: %w", op, c.retries, last)
}

func (c *Client) sleep(ctx context.Context, attempt int) error {
	return Sleep(ctx, Backoff(c.backoffBase, c.backoffMax, attempt))
}
