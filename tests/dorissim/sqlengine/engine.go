// Package sqlengine is the SQL front of the Doris simulator: go-mysql-server
// plans and evaluates the SQL, storage holds the data, and this package
// rewrites the Doris-only syntax in between and serves the MySQL protocol.
package sqlengine

import (
	"crypto/subtle"
	"errors"
	"sync"
	"sync/atomic"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Config configures an Engine.
type Config struct {
	Store    *storage.Store
	User     string
	Password string
	// Frontend gives the ports SHOW FRONTENDS reports, read at query time.
	Frontend func() Frontend
}

// Frontend is the FE row of SHOW FRONTENDS.
type Frontend struct {
	Host                                                          string
	HTTPPort, QueryPort, RPCPort, EditLogPort, ArrowFlightSQLPort int
}

// Engine owns the GMS engine shared by all sessions.
type Engine struct {
	cfg    Config
	store  *storage.Store
	prov   *provider
	gms    *sqle.Engine
	nextID atomic.Uint32

	mu       sync.Mutex
	servers  []*server.Server
	sessions map[uint32]*Session // MySQL connections by connection id
	closed   bool
}

// New builds an engine over cfg.Store.
func New(cfg Config) (*Engine, error) {
	if cfg.Store == nil {
		return nil, errors.New("sqlengine: Config.Store is required")
	}
	if cfg.Frontend == nil {
		cfg.Frontend = func() Frontend { return Frontend{Host: "127.0.0.1"} }
	}
	prov := newProvider(cfg.Store)
	return &Engine{
		cfg:      cfg,
		store:    cfg.Store,
		prov:     prov,
		gms:      sqle.NewDefault(prov),
		sessions: map[uint32]*Session{},
	}, nil
}

// Authenticate checks a user name and password against the configured
// account.
func (e *Engine) Authenticate(user, password string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(e.cfg.User))
	p := subtle.ConstantTimeCompare([]byte(password), []byte(e.cfg.Password))
	return u&p == 1
}

// NewSession opens a session for user; the caller has authenticated it.
func (e *Engine) NewSession(user string) *Session {
	return e.newSession(user, "localhost", e.nextID.Add(1))
}

func (e *Engine) newSession(user, addr string, id uint32) *Session {
	client := sql.Client{User: user, Address: addr}
	base := sql.NewBaseSessionWithClientServer("dorissim", client, id)
	gs := &gmsSession{BaseSession: base, dorisVars: map[string]string{}}
	return &Session{eng: e, gs: gs, user: user}
}

// Close stops every MySQL listener and releases the GMS engine.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	err := e.CloseMySQL()
	if cerr := e.gms.Close(); err == nil {
		err = cerr
	}
	return err
}

// visibleColumns lists a table's own columns, which is what `*` means on an
// @incr read; nil when the table does not exist (the read then fails there).
func (e *Engine) visibleColumns(db, table string) []string {
	info, err := e.store.Table(db, table)
	if err != nil {
		return nil
	}
	names := make([]string, len(info.Def.Columns))
	for i, c := range info.Def.Columns {
		names[i] = c.Name
	}
	return names
}
