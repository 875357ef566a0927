package sqlengine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// asofFuncName is the table function that `<table> FOR VERSION AS OF <tso>
// [TABLET(...)]` is rewritten to; its arguments are (alias, database,
// table, tso, tablet ids...).
const asofFuncName = "__doris_asof"

// asofFunc serves a time-travel read (docs/time-travel.md). Like Doris,
// which fixes the partitions' visible versions when it plans the query,
// the store is read while the statement is planned, so table errors and
// the TTL error come back from Query itself.
type asofFunc struct {
	tfBase
	store     *storage.Store
	tso       int64
	tablets   []int64
	cols      []storage.Column
	commitTSO bool // cols ends with the hidden commit-TSO column
	iter      *onceIter
}

var (
	_ sql.TableFunction      = (*asofFunc)(nil)
	_ sql.ExecSourceRel      = (*asofFunc)(nil)
	_ sql.CollationCoercible = (*asofFunc)(nil)
)

func (f *asofFunc) Name() string { return asofFuncName }
func (f *asofFunc) Description() string {
	return "Doris time travel on an OLAP table (<table> FOR VERSION AS OF <tso>)"
}
func (f *asofFunc) String() string {
	return fmt.Sprintf("%s FOR VERSION AS OF %d TABLET(%v)", f.table, f.tso, f.tablets)
}

func (f *asofFunc) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	vals, err := stringArgs(ctx, asofFuncName, args, 4)
	if err != nil {
		return nil, err
	}
	tso, err := strconv.ParseInt(strings.TrimSpace(vals[3]), 10, 64)
	if err != nil || tso < 0 {
		return nil, &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Invalid version in FOR VERSION AS OF: %s", vals[3])}
	}
	rest, commitTSO, _ := takeMarkers(vals[4:])
	var ids []int64
	for _, v := range rest {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Invalid tablet id: %s", v)}
		}
		ids = append(ids, id)
	}
	info, err := f.store.Table(vals[1], vals[2])
	if err != nil {
		return nil, err
	}
	if err := checkTablets(info, ids); err != nil {
		return nil, err
	}
	n := &asofFunc{
		tfBase:    tfBase{db: db, alias: vals[0], dbName: info.DB, table: info.Def.Name},
		store:     f.store,
		tso:       tso,
		tablets:   ids,
		cols:      info.Def.Columns,
		commitTSO: commitTSO,
	}
	if commitTSO {
		n.cols = withCommitTSO(n.cols)
	}
	if err := n.open(ctx); err != nil {
		return nil, err
	}
	n.schema = gmsSchema(n.alias, n.dbName, n.cols)
	noteColumns(ctx, n.alias, n.cols)
	return n, nil
}

func (f *asofFunc) open(ctx *sql.Context) error {
	scan := f.store.ScanAsOf
	if f.commitTSO {
		scan = f.store.ScanAsOfWithCommitTSO
	}
	it, err := scan(f.dbName, f.table, f.tablets, f.tso)
	if err != nil {
		return err
	}
	f.iter = &onceIter{it: it}
	notePending(ctx, f.iter)
	return nil
}

func (f *asofFunc) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	if f.iter == nil || f.iter.taken {
		// A second scan (the inner side of a join) reads the same target again.
		if err := f.open(ctx); err != nil {
			return nil, err
		}
	}
	f.iter.taken = true
	return &storageRowIter{it: f.iter, cols: f.cols, convert: rowNeedsConversion(f.cols)}, nil
}

func (f *asofFunc) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *asofFunc) WithExpressions(...sql.Expression) (sql.Node, error) { return f, nil }

func (f *asofFunc) WithDatabase(db sql.Database) (sql.Node, error) {
	cp := *f
	cp.db = db
	return &cp, nil
}
