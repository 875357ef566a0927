package input

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
)

// conn holds one generation's clients: the FE REST client and a Flight SQL
// session whose session variables (exec_mem_limit) are set once.
type conn struct {
	conf *Config
	log  *service.Logger
	rest *doris.Client

	portMu sync.Mutex
	port   int

	mu     sync.Mutex
	flight *flight.Client
	props  *doris.TableProperties
	propAt time.Time
}

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
	if conf.HasBinlogPhase() {
		if err := c.checkBinlogTable(ctx); err != nil {
			return nil, err
		}
	} else if _, err := c.tableProperties(ctx, true); err != nil {
		// A snapshot needs them only for DATETIME precision; without them
		// the Arrow unit decides the digits.
		log.Warnf("Reading SHOW CREATE TABLE failed, DATETIME values get the digits of their Arrow unit: %v", err)
	}
	if _, err := c.flightClient(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// checkBinlogTable fails early, with the fix, on tables whose @incr queries
// Doris would reject anyway.
func (c *conn) checkBinlogTable(ctx context.Context) error {
	props, err := c.tableProperties(ctx, true)
	if err != nil {
		return err
	}
	table := c.conf.DB + "." + c.conf.Table
	if !props.BinlogEnabled || props.BinlogFormat != "ROW" {
		return fatalf("table %s has no row binlog (INCR query requires ROW binlog enabled on base table.): "+
			"create it with PROPERTIES (\"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\"), or use scan_mode: snapshot", table)
	}
	if c.conf.IncrementType == "MIN_DELTA" && !props.NeedHistoricalValue {
		return fatalf("binlog_increment_type min_delta needs before-images, but table %s has binlog.need_historical_value=false: "+
			"use binlog_increment_type detail or append_only, or create the table with \"binlog.need_historical_value\" = \"true\"", table)
	}
	return nil
}

// tableProperties returns SHOW CREATE TABLE facts, re-read at most every five
// minutes so that an ALTER of binlog.ttl_seconds is noticed.
func (c *conn) tableProperties(ctx context.Context, refresh bool) (*doris.TableProperties, error) {
	c.mu.Lock()
	props, at := c.props, c.propAt
	c.mu.Unlock()
	if props != nil && !refresh && time.Since(at) < propsRefreshInterval {
		return props, nil
	}
	fresh, err := c.rest.TableProperties(ctx, c.conf.DB, c.conf.Table)
	if err != nil {
		if props != nil {
			c.log.Warnf("Refreshing table properties of %s.%s failed, keeping the previous ones: %v", c.conf.DB, c.conf.Table, err)
			return props, nil
		}
		return nil, fmt.Errorf("table properties of %s.%s: %w", c.conf.DB, c.conf.Table, err)
	}
	c.mu.Lock()
	c.props, c.propAt = fresh, time.Now()
	c.mu.Unlock()
	return fresh, nil
}

const propsRefreshInterval = 5 * time.Minute

// flightClient returns the binlog reader's Flight session, dialling one when
// there is none.
func (c *conn) flightClient(ctx context.Context) (*flight.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flight != nil {
		return c.flight, nil
	}
	fc, err := c.dialFlight(ctx)
	if err != nil {
		return nil, err
	}
	c.flight = fc
	return fc, nil
}

// dialFlight opens a new Flight session. A Doris Flight session (one bearer
// token) runs one query at a time, so every concurrent reader needs its own,
// as the reference connector uses one connection per split.
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

// resetFlight drops the Flight session after a failure; the next query dials
// a new one.
func (c *conn) resetFlight() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flight != nil {
		_ = c.flight.Close()
		c.flight = nil
	}
}

func (c *conn) close() {
	c.resetFlight()
}
