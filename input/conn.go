package input

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
)

// conn holds one run's clients: the FE REST client and a pool of Flight SQL
// sessions. A Doris Flight session (one bearer token) runs one query at a
// time, so every concurrent reader (a snapshot split, a table's part of a
// window) takes a session of its own, as the reference connector uses one
// connection per split. Idle sessions are kept for the next window.
type conn struct {
	conf *Config
	log  *service.Logger
	rest *doris.Client

	portMu sync.Mutex
	port   int

	poolMu sync.Mutex
	idle   []*flight.Client
	closed bool
}

// maxIdleSessions bounds the sessions kept open between windows; more are
// closed after use. Sessions count toward Doris's max_user_connections.
const maxIdleSessions = 64

func openConn(ctx context.Context, conf *Config, log *service.Logger) (*conn, error) {
	rest, err := doris.NewClient(doris.ClientConfig{
		FENodes:        conf.FENodes,
		Username:       conf.Username,
		Password:       conf.Password,
		TLS:            conf.TLS,
		Retries:        conf.Retries,
		ConnectTimeout: conf.ConnectTimeout,
		ReadTimeout:    conf.ReadTimeout,
		Logger:         log,
	})
	if err != nil {
		return nil, err
	}
	c := &conn{conf: conf, log: log, rest: rest}
	// Dial one session now, so that a wrong port or password fails Connect.
	fc, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	c.release(fc, true)
	return c, nil
}

// session takes an idle Flight session or dials a new one.
func (c *conn) session(ctx context.Context) (*flight.Client, error) {
	c.poolMu.Lock()
	if n := len(c.idle); n > 0 {
		fc := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.poolMu.Unlock()
		return fc, nil
	}
	c.poolMu.Unlock()
	return c.dialFlight(ctx)
}

// release returns a session to the pool; one that failed is closed, since
// its server side may be gone.
func (c *conn) release(fc *flight.Client, healthy bool) {
	if fc == nil {
		return
	}
	c.poolMu.Lock()
	if healthy && !c.closed && len(c.idle) < maxIdleSessions {
		c.idle = append(c.idle, fc)
		c.poolMu.Unlock()
		return
	}
	c.poolMu.Unlock()
	_ = fc.Close()
}

func (c *conn) dialFlight(ctx context.Context) (*flight.Client, error) {
	port, err := c.flightPort(ctx)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(c.rest.Host(), strconv.Itoa(port))
	fc, err := flight.Dial(ctx, flight.Config{
		Addr:           addr,
		Username:       c.conf.Username,
		Password:       c.conf.Password,
		TLS:            c.conf.TLS,
		ConnectTimeout: c.conf.ConnectTimeout,
	})
	if err != nil {
		return nil, err
	}
	if c.conf.ExecMemLimit > 0 {
		stmt := "SET exec_mem_limit = " + strconv.FormatInt(c.conf.ExecMemLimit, 10)
		if err := fc.Exec(ctx, stmt); err != nil {
			_ = fc.Close()
			return nil, fmt.Errorf("setting exec_mem_limit on %s: %w", addr, err)
		}
	}
	return fc, nil
}

// flightPort is flight_sql_port, or the FE's port from show frontends,
// discovered once.
func (c *conn) flightPort(ctx context.Context) (int, error) {
	c.portMu.Lock()
	defer c.portMu.Unlock()
	if c.port == 0 {
		c.port = c.conf.FlightSQLPort
	}
	if c.port == 0 {
		p, err := c.rest.FlightSQLPort(ctx)
		if err != nil {
			return 0, fmt.Errorf("discovering the Flight SQL port with show frontends: %w", err)
		}
		c.port = p
	}
	return c.port, nil
}

func (c *conn) close() {
	c.poolMu.Lock()
	idle := c.idle
	c.idle, c.closed = nil, true
	c.poolMu.Unlock()
	for _, fc := range idle {
		_ = fc.Close()
	}
}
