package flight

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// maxSQLInErrors keeps error messages readable for long generated statements.
const maxSQLInErrors = 200

// Query executes sql (GetFlightInfo on the FE), then DoGets every endpoint at
// its location in order, calling fn for each record batch. rec is valid only
// during fn. An error from fn stops the query and is returned as is. A failed
// query is never resumed: the caller re-runs Query, which executes afresh, so
// no ticket is fetched twice. A nil fn drains the result.
func (c *Client) Query(ctx context.Context, sql string, fn func(rec arrow.RecordBatch) error) error {
	if fn == nil {
		fn = func(arrow.RecordBatch) error { return nil }
	}
	info, err := c.execute(ctx, sql)
	if err != nil {
		return err
	}
	return c.fetchAll(ctx, info, fn)
}

func (c *Client) fetchAll(ctx context.Context, info *flight.FlightInfo, fn func(arrow.RecordBatch) error) error {
	for i, ep := range info.GetEndpoint() {
		if err := c.fetchEndpoint(ctx, i, ep, fn); err != nil {
			return err
		}
	}
	return nil
}

// Exec runs a statement whose result does not matter (SET, USE, ...) and
// drains it. Session statements (SET, USE) are remembered and replayed after
// a re-handshake, because a new bearer token is a new FE session.
func (c *Client) Exec(ctx context.Context, sql string) error {
	if err := c.Query(ctx, sql, nil); err != nil {
		return err
	}
	if isSessionStatement(sql) {
		c.mu.Lock()
		// Moving a repeated statement to the end keeps the replay order
		// right and the list bounded by distinct statements.
		c.session = append(slices.DeleteFunc(c.session, func(s string) bool { return s == sql }), sql)
		c.mu.Unlock()
	}
	return nil
}

func isSessionStatement(sql string) bool {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "SET", "USE":
		return true
	}
	return false
}

// replaySession re-runs the remembered session statements on the current
// token, without re-authenticating again.
func (c *Client) replaySession(ctx context.Context) error {
	c.mu.Lock()
	stmts := append([]string(nil), c.session...)
	c.mu.Unlock()
	for _, sql := range stmts {
		info, err := c.executeOnce(ctx, sql)
		if err == nil {
			err = c.fetchAll(ctx, info, func(arrow.RecordBatch) error { return nil })
		}
		if err != nil {
			return fmt.Errorf("replay session statement after re-authentication: %w", err)
		}
	}
	return nil
}

// execute runs GetFlightInfo, handshaking again and retrying once when the
// bearer token has expired or was evicted.
func (c *Client) execute(ctx context.Context, sql string) (*flight.FlightInfo, error) {
	info, err := c.executeOnce(ctx, sql)
	if err == nil || !IsUnauthenticated(err) {
		return info, err
	}
	if aerr := c.authenticate(ctx); aerr != nil {
		return nil, fmt.Errorf("re-authenticate after %v: %w", err, aerr)
	}
	if rerr := c.replaySession(ctx); rerr != nil {
		return nil, rerr
	}
	return c.executeOnce(ctx, sql)
}

func (c *Client) executeOnce(ctx context.Context, sql string) (*flight.FlightInfo, error) {
	var header, trailer metadata.MD
	info, err := c.fsql.Execute(c.bearerContext(ctx), sql, grpc.Header(&header), grpc.Trailer(&trailer))
	if err == nil {
		return info, nil
	}
	if we := classifyExecuteError(err, header, trailer); we != nil {
		err = we
	}
	return nil, fmt.Errorf("doris flight sql at %s: execute %q: %w", c.cfg.Addr, abbreviate(sql), err)
}

// fetchEndpoint streams one endpoint's ticket batch by batch.
func (c *Client) fetchEndpoint(ctx context.Context, idx int, ep *flight.FlightEndpoint, fn func(arrow.RecordBatch) error) error {
	t, err := c.eps.target(ep)
	if err != nil {
		return fmt.Errorf("doris flight sql at %s: endpoint %d: %w", c.cfg.Addr, idx, err)
	}
	where := c.cfg.Addr
	if !t.useFE {
		where = t.addr
	}
	cc := c.fe
	if !t.useFE {
		if cc, err = c.eps.conn(t); err != nil {
			return fmt.Errorf("doris flight sql: endpoint %d at %s: %w", idx, where, err)
		}
	}
	// Cancelling the stream on every exit frees the server side when fn
	// stops early.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := flight.NewFlightServiceClient(cc).DoGet(c.bearerContext(ctx), ep.GetTicket())
	if err != nil {
		return fmt.Errorf("doris flight sql: fetch endpoint %d at %s: %w", idx, where, upgradeHint(t, err))
	}
	rdr, err := flight.NewRecordReader(stream, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return fmt.Errorf("doris flight sql: fetch endpoint %d at %s: %w", idx, where, upgradeHint(t, err))
	}
	defer rdr.Release()
	for rdr.Next() {
		if err := fn(rdr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rdr.Err(); err != nil {
		return fmt.Errorf("doris flight sql: read endpoint %d at %s: %w", idx, where, err)
	}
	return nil
}

func abbreviate(sql string) string {
	if len(sql) <= maxSQLInErrors {
		return sql
	}
	cut := maxSQLInErrors
	for cut > 0 && sql[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return sql[:cut] + "..."
}
