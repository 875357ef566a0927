// Package doris is the client side of the Doris FE: REST calls (TSO,
// statements, schema, query plan), SQL builders and quoting, strict
// timestamps, snapshot split planning and the offset-table publisher.
package doris

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

const (
	defaultRetries        = 3
	defaultConnectTimeout = 60 * time.Second
	defaultReadTimeout    = 60 * time.Second
)

// ClientConfig configures a Client, and the HTTP client of every caller of
// the FEs (NewHTTPClient).
type ClientConfig struct {
	// FENodes are host:port, tried in this order, starting from the FE that
	// last answered (FERotation).
	FENodes            []string
	Username, Password string
	TLS                *tls.Config // nil: http
	Retries            int         // attempts in total per call; 0 means 3
	ConnectTimeout     time.Duration
	ReadTimeout        time.Duration
	Logger             *service.Logger // may be nil
}

// DefaultFEBackoff is how a call waits between its attempts over the FEs:
// 200ms doubling, capped at 5s, jittered.
var DefaultFEBackoff = BackoffPolicy{Base: 200 * time.Millisecond, Max: 5 * time.Second}

// Client is the transport to the FE HTTP API of a Doris cluster: the FE
// order, credentials and retries, and one HTTP exchange (rest.go). Each
// endpoint (statement.go, tso.go, queryplan.go, schema.go and the SQL
// built on statements: catalog.go, showcreate.go, partitions.go,
// fetime.go, fezone.go, frontends.go) is a function of its own file that
// takes a Client, so that the transport has one owner and an endpoint's
// request, parsing and errors sit together.
//
// Retry policy: each call makes at most Retries attempts over the FEs in
// FERotation's order, so a healthy FE keeps serving and Host() stays
// stable. Between attempts the client sleeps DefaultFEBackoff, honouring
// ctx. Transport errors, 5xx, 408, 429 and unparsable bodies are retried
// because another FE (or a moment later) may answer; 401/403 and other
// 4xx, and Doris errors reported with code != 0 on statements, are
// returned at once because they repeat on every FE.
type Client struct {
	fes      *FERotation
	user     string
	password string
	scheme   string
	retry    RetryPolicy
	readTO   time.Duration
	hc       *http.Client
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
	return &Client{
		fes:      NewFERotation(fes),
		user:     cfg.Username,
		password: cfg.Password,
		scheme:   cfg.Scheme(),
		retry:    RetryPolicy{Attempts: orDefault(cfg.Retries, defaultRetries), Backoff: DefaultFEBackoff, Log: cfg.Logger},
		readTO:   orDefault(cfg.ReadTimeout, defaultReadTimeout),
		hc:       NewHTTPClient(cfg),
	}, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Host returns the host (without port) of the FE that last answered, or of
// the first FE tried when none has answered yet.
func (c *Client) Host() string {
	host, _, _ := net.SplitHostPort(c.fes.At(c.fes.Start(), 0))
	return host
}

// Close releases idle connections.
func (c *Client) Close() {
	c.hc.CloseIdleConnections()
}

// withRetry runs fn over the FEs as the retry policy says.
func (c *Client) withRetry(ctx context.Context, op string, fn func(ctx context.Context, fe string) error) error {
	return c.fes.Do(ctx, c.retry, op, fn)
}
