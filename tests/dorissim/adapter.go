package dorissim

import (
	"context"
	"net"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/feapi"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/sqlengine"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// backend adapts the SQL engine and the store to the server packages'
// interfaces (feapi.Backend, flightsrv.Engine).
type backend struct {
	engine *sqlengine.Engine
	*storage.Store
}

func (b backend) Authenticate(user, password string) bool {
	return b.engine.Authenticate(user, password)
}

func (b backend) NewSession(user string) feapi.Session {
	return sessionAdapter{s: b.engine.NewSession(user)}
}

type sessionAdapter struct{ s *sqlengine.Session }

func (a sessionAdapter) Close() { a.s.Close() }

// Detach lets a Flight result outlive the token's next statement.
func (a sessionAdapter) Detach() { a.s.Detach() }

func (a sessionAdapter) Query(ctx context.Context, sql string) (feapi.Result, error) {
	r, err := a.s.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	cols := make([]storage.Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = storage.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable}
	}
	return resultAdapter{r: r, cols: cols}, nil
}

type resultAdapter struct {
	r    *sqlengine.Result
	cols []storage.Column
}

func (a resultAdapter) Columns() []storage.Column { return a.cols }
func (a resultAdapter) Next() ([]any, error)      { return a.r.Next() }
func (a resultAdapter) Close() error              { return a.r.Close() }

// slowConn adds the latency fault before each read of a MySQL connection,
// i.e. roughly once per client command.
type slowConn struct {
	net.Conn
	latency func() time.Duration
}

func (c slowConn) Read(p []byte) (int, error) {
	if d := c.latency(); d > 0 {
		time.Sleep(d)
	}
	return c.Conn.Read(p)
}

// BeginLoad returns the store's load txn as the FE API's interface.
func (b backend) BeginLoad(db, label string) (feapi.LoadTxn, error) {
	lt, err := b.Store.BeginLoad(db, label)
	if err != nil {
		return nil, err
	}
	return lt, nil
}
