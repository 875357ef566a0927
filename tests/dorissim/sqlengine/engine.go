// Package sqlengine is the SQL front of the Doris simulator: go-mysql-server
// plans and evaluates the SQL, storage holds the data, and this package
// rewrites the Doris-only syntax in between and serves the MySQL protocol.
package sqlengine

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/connpool"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Config configures an Engine.
type Config struct {
	Store    *storage.Store
	User     string
	Password string
	// Frontend gives the ports SHOW FRONTENDS reports, read at query time.
	Frontend func() Frontend
	// TimeZone is the global time_zone new sessions start with (named IANA
	// zone or offset, as SET time_zone accepts); "" means the host's zone,
	// as a Doris FE defaults it (HostTimeZone).
	TimeZone string
	// Pool admits MySQL connections, and SET PROPERTY sets its users'
	// limits; nil is a pool of Doris's default limits, of this engine alone.
	Pool *connpool.Pool
	// OnMySQLStatement, when set, is called once for each statement a
	// MySQL-protocol client runs, so that the FE's statement load can be
	// counted beside its HTTP and Flight requests.
	OnMySQLStatement func()
	// PreTimeTravelFE makes the FE one from before OLAP time travel
	// (apache/doris#64776): FOR VERSION AS OF is parsed and ignored, and
	// tables have no __DORIS_COMMIT_TSO_COL__ (docs/time-travel.md §1.10).
	// SetPreTimeTravelFE changes it while the engine runs.
	PreTimeTravelFE bool
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
	// defaultZone is the configured global time_zone (SET ... = DEFAULT),
	// zone the current one (SET GLOBAL time_zone).
	defaultZone string
	zone        globalZone
	// preTimeTravel is Config.PreTimeTravelFE, switchable at run time.
	preTimeTravel atomic.Bool

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
	if cfg.TimeZone == "" {
		cfg.TimeZone = HostTimeZone()
	}
	zone, err := standardizeTimeZone(cfg.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: time zone %q: %w", cfg.TimeZone, err)
	}
	if cfg.Pool == nil {
		// Doris's defaults are valid limits, so this cannot fail.
		cfg.Pool, _ = connpool.New(connpool.Limits{})
	}
	prov := newProvider(cfg.Store)
	gms := sqle.NewDefault(prov)
	gms.Analyzer.Catalog.InfoSchema = newDorisInfoSchema(sql.NewEmptyContext(), gms.Analyzer.Catalog.InfoSchema, cfg.Store)
	e := &Engine{
		cfg:         cfg,
		store:       cfg.Store,
		prov:        prov,
		gms:         gms,
		sessions:    map[uint32]*Session{},
		defaultZone: zone,
	}
	e.zone.set(zone)
	e.preTimeTravel.Store(cfg.PreTimeTravelFE)
	return e, nil
}

// GlobalTimeZone is the global time_zone that new sessions start with.
func (e *Engine) GlobalTimeZone() string { return e.zone.get() }

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
	gs := &gmsSession{BaseSession: base, dorisVars: map[string]string{}, zone: &e.zone}
	// Like a Doris ConnectContext, a session copies the global variables
	// when it opens; a later SET GLOBAL does not reach it.
	// GMS's time_zone is a plain string variable, so this cannot fail.
	_ = gs.SetSessionVariable(sql.NewContext(context.Background(), sql.WithSession(gs)), "time_zone", e.zone.get())
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
