package input

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
)

// conn holds one run's clients: the FE REST client and a pool of Flight SQL
// sessions. A Doris Flight session (one bearer token) runs one query at a
// time, so every concurrent reader (a snapshot split, a table's part of a
// window) takes a session of its own, as the reference connector uses one
// connection per split; the pool holds at most max_flight_sessions of
// them, and a reader over that waits for one (sessionPool).
type conn struct {
	conf *Config
	log  *service.Logger
	rest *doris.Client
	// zone is the FE's time_zone, read at connect: the zone of
	// scan_timestamp and offset_timestamp, and of older checkpoints.
	zone doris.FEZone

	portMu sync.Mutex
	port   int

	poolOnce sync.Once
	pool     *sessionPool[*flight.Client]
}

func openConn(ctx context.Context, conf *Config, log *service.Logger) (*conn, error) {
	rest, err := restClient(conf, log, conf.FENodes, conf.Retries)
	if err != nil {
		return nil, err
	}
	zone, err := doris.FETimeZone(ctx, rest)
	if err != nil {
		return nil, err
	}
	c := &conn{conf: conf, log: log, rest: rest, zone: zone}
	// Dial one session now, so that a wrong port or password fails Connect.
	fc, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	c.release(fc, true)
	return c, nil
}

// restClient is the one place the FE REST client of the input is built:
// for a run (every FE, with retries) and for the connection test (one FE
// at a time).
func restClient(conf *Config, log *service.Logger, fes []string, retries int) (*doris.Client, error) {
	return doris.NewClient(doris.ClientConfig{
		FENodes:        fes,
		Username:       conf.Username,
		Password:       conf.Password,
		TLS:            conf.TLS,
		Retries:        retries,
		ConnectTimeout: conf.ConnectTimeout,
		ReadTimeout:    conf.ReadTimeout,
		Logger:         log,
	})
}

// session takes an idle Flight session, dials a new one, or waits while
// max_flight_sessions are open.
func (c *conn) session(ctx context.Context) (*flight.Client, error) {
	return c.sessions().acquire(ctx)
}

// sessions is the run's session pool, of max_flight_sessions.
func (c *conn) sessions() *sessionPool[*flight.Client] {
	c.poolOnce.Do(func() {
		n := defaultMaxFlightSessions // a Config built in code, not parsed
		if c.conf != nil && c.conf.MaxFlightSessions > 0 {
			n = c.conf.MaxFlightSessions
		}
		if c.pool == nil {
			c.pool = newSessionPool(n, c.dialFlight)
		}
	})
	return c.pool
}

// onSession runs fn on a pooled Flight session, with timeout on the query
// clock of qctx: the time fn waits on Doris, not the time it holds the
// query in holdQuery. The session goes back to the pool only when fn
// succeeded: a failed one may be broken.
func (c *conn) onSession(ctx context.Context, timeout time.Duration, fn func(context.Context, *flight.Client) error) (err error) {
	fc, err := c.session(ctx)
	if err != nil {
		return err
	}
	defer func() { c.release(fc, err == nil) }()
	qctx, stop := startQueryClock(ctx, timeout)
	defer stop()
	return fn(qctx, fc)
}

// release returns a session to the pool; one that failed is closed, since
// its server side may be gone.
func (c *conn) release(fc *flight.Client, healthy bool) {
	if fc == nil {
		return
	}
	c.sessions().release(fc, healthy)
}

func (c *conn) dialFlight(ctx context.Context) (*flight.Client, error) {
	// Authentication and the session statements are small round trips: the
	// run's context has no deadline, so they get one of their own, as the
	// REST calls and the queries (request_query_timeout) do.
	ctx, cancel := context.WithTimeout(ctx, sessionSetupLimit(c.conf.ConnectTimeout))
	defer cancel()
	port, err := c.flightPort(ctx)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(c.rest.Host(), strconv.Itoa(port))
	// Every session, for snapshot reads and @incr windows alike, runs in
	// UTC: window bounds are UTC, and zoned Arrow timestamps then carry
	// +00:00. DialUTC checks that the FE took it.
	fc, err := flight.DialUTC(ctx, flight.Config{
		Addr:           addr,
		Username:       c.conf.Username,
		Password:       c.conf.Password,
		TLS:            c.conf.TLS,
		ConnectTimeout: c.conf.ConnectTimeout,

		AllowPlaintextEndpoints: c.conf.AllowPlaintextEndpoints,
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
		p, err := doris.FlightSQLPort(ctx, c.rest)
		if err != nil {
			return 0, fmt.Errorf("discovering the Flight SQL port with show frontends: %w", err)
		}
		c.port = p
	}
	return c.port, nil
}

func (c *conn) close() {
	c.sessions().close()
}

// sessionSetupLimit bounds opening one Flight session: the handshake, the
// time zone and exec_mem_limit statements, each about a connect's worth.
func sessionSetupLimit(connect time.Duration) time.Duration {
	if connect <= 0 {
		connect = flight.DefaultConnectTimeout
	}
	return 4 * connect
}
