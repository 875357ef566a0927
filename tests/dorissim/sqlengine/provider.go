package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// provider exposes storage databases to GMS, plus the Doris table functions
// that carry @incr and TABLET() reads and the Doris overrides of built-in
// functions.
type provider struct {
	store     *storage.Store
	tableFns  map[string]sql.TableFunction
	functions map[string]sql.Function
}

var (
	_ sql.DatabaseProvider      = (*provider)(nil)
	_ sql.TableFunctionProvider = (*provider)(nil)
	_ sql.FunctionProvider      = (*provider)(nil)
)

func newProvider(store *storage.Store) *provider {
	p := &provider{store: store, tableFns: map[string]sql.TableFunction{}, functions: map[string]sql.Function{}}
	for _, fn := range []sql.TableFunction{&incrFunc{store: store}, &tabletFunc{store: store}, &asofFunc{store: store}} {
		p.tableFns[strings.ToLower(fn.Name())] = fn
	}
	for _, fn := range dorisFunctions() {
		p.functions[strings.ToLower(fn.FunctionName())] = fn
	}
	return p
}

// Database resolves a storage database case-insensitively, as Doris does for
// database names on a case-insensitive FE.
func (p *provider) Database(_ *sql.Context, name string) (sql.Database, error) {
	if db, ok := p.lookup(name); ok {
		return db, nil
	}
	return nil, sql.ErrDatabaseNotFound.New(name)
}

func (p *provider) HasDatabase(_ *sql.Context, name string) bool {
	_, ok := p.lookup(name)
	return ok
}

func (p *provider) AllDatabases(*sql.Context) []sql.Database {
	names := p.store.Databases()
	out := make([]sql.Database, 0, len(names))
	for _, n := range names {
		out = append(out, &database{store: p.store, name: n})
	}
	return out
}

func (p *provider) lookup(name string) (*database, bool) {
	for _, n := range p.store.Databases() {
		if n == name {
			return &database{store: p.store, name: n}, true
		}
	}
	for _, n := range p.store.Databases() {
		if strings.EqualFold(n, name) {
			return &database{store: p.store, name: n}, true
		}
	}
	return nil, false
}

func (p *provider) TableFunction(_ *sql.Context, name string) (sql.TableFunction, bool) {
	fn, ok := p.tableFns[strings.ToLower(name)]
	return fn, ok
}

func (p *provider) WithTableFunctions(fns ...sql.TableFunction) (sql.TableFunctionProvider, error) {
	cp := *p
	cp.tableFns = make(map[string]sql.TableFunction, len(p.tableFns)+len(fns))
	for k, v := range p.tableFns {
		cp.tableFns[k] = v
	}
	for _, fn := range fns {
		cp.tableFns[strings.ToLower(fn.Name())] = fn
	}
	return &cp, nil
}

func (p *provider) Function(_ *sql.Context, name string) (sql.Function, bool) {
	fn, ok := p.functions[strings.ToLower(name)]
	return fn, ok
}
