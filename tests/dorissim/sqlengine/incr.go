package sqlengine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// incrFunc serves `<table>@incr(...)`. Store.Incr runs while the statement is
// planned, so validation and window errors come back from Query itself, as
// Doris reports them from planning.
type incrFunc struct {
	tfBase
	store  *storage.Store
	params storage.IncrParams
	cols   []storage.Column
	iter   *onceIter
}

var (
	_ sql.TableFunction      = (*incrFunc)(nil)
	_ sql.ExecSourceRel      = (*incrFunc)(nil)
	_ sql.CollationCoercible = (*incrFunc)(nil)
)

func (f *incrFunc) Name() string        { return incrFuncName }
func (f *incrFunc) Description() string { return "Doris row binlog incremental read (<table>@incr)" }
func (f *incrFunc) String() string {
	return fmt.Sprintf("%s@incr(%v)", f.table, f.params.Params)
}

func (f *incrFunc) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	vals, err := stringArgs(ctx, incrFuncName, args, 3)
	if err != nil {
		return nil, err
	}
	if (len(vals)-3)%2 != 0 {
		return nil, &storage.Error{Code: storage.CodeGeneric, Message: "Unsupported parameter in incr query"}
	}
	params := make(map[string]string, (len(vals)-3)/2)
	for i := 3; i+1 < len(vals); i += 2 {
		params[vals[i]] = vals[i+1]
	}
	loc, err := sessionLocation(ctx)
	if err != nil {
		return nil, err
	}
	n := &incrFunc{
		tfBase: tfBase{db: db, alias: vals[0], dbName: vals[1], table: vals[2]},
		store:  f.store,
		params: storage.IncrParams{Params: params, Location: loc, MemLimit: sessionMemLimit(ctx)},
	}
	if err := n.open(ctx); err != nil {
		return nil, err
	}
	n.schema = gmsSchema(n.alias, n.dbName, n.cols)
	noteColumns(ctx, n.alias, n.cols)
	return n, nil
}

func (f *incrFunc) open(ctx *sql.Context) error {
	cols, it, err := f.store.Incr(ctx, f.dbName, f.table, f.params)
	if err != nil {
		return err
	}
	f.cols = cols
	f.iter = &onceIter{it: it}
	notePending(ctx, f.iter)
	return nil
}

func (f *incrFunc) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	if f.iter == nil || f.iter.taken {
		// A second scan (e.g. the inner side of a join) re-reads the window.
		if err := f.open(ctx); err != nil {
			return nil, err
		}
	}
	f.iter.taken = true
	return &storageRowIter{it: f.iter, cols: f.cols, convert: rowNeedsConversion(f.cols)}, nil
}

func (f *incrFunc) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *incrFunc) WithExpressions(...sql.Expression) (sql.Node, error) { return f, nil }

func (f *incrFunc) WithDatabase(db sql.Database) (sql.Node, error) {
	cp := *f
	cp.db = db
	return &cp, nil
}

// onceIter makes Close idempotent, since both the executor and the session's
// cleanup may close an @incr iterator.
type onceIter struct {
	it     storage.RowIter
	taken  bool
	closed bool
}

func (o *onceIter) Next() ([]any, error) { return o.it.Next() }

func (o *onceIter) Close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	return o.it.Close()
}

// sessionMemLimit is the session's exec_mem_limit in bytes, 0 when unset or
// not a plain number (Doris's own default is then in force, which no
// simulated window reaches).
func sessionMemLimit(ctx *sql.Context) int64 {
	s, ok := ctx.Session.(*gmsSession)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s.dorisVars["exec_mem_limit"]), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
