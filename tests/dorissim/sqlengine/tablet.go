package sqlengine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// tabletFunc serves `<table> TABLET(<ids>)`: a scan of the given tablets,
// inside the session's transaction when it has written.
type tabletFunc struct {
	tfBase
	store     *storage.Store
	tablets   []int64 // nil: every tablet
	cols      []storage.Column
	commitTSO bool // cols ends with the hidden commit-TSO column
}

var (
	_ sql.TableFunction      = (*tabletFunc)(nil)
	_ sql.ExecSourceRel      = (*tabletFunc)(nil)
	_ sql.CollationCoercible = (*tabletFunc)(nil)
)

func (f *tabletFunc) Name() string { return tabletFuncName }
func (f *tabletFunc) Description() string {
	return "Doris scan of selected tablets (<table> TABLET(...))"
}
func (f *tabletFunc) String() string {
	return fmt.Sprintf("%s TABLET(%v)", f.table, f.tablets)
}

func (f *tabletFunc) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	vals, err := stringArgs(ctx, tabletFuncName, args, 3)
	if err != nil {
		return nil, err
	}
	rest, commitTSO, all := takeMarkers(vals[3:])
	var ids []int64
	if !all {
		ids = make([]int64, 0, len(rest))
	}
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
	n := &tabletFunc{
		tfBase:    tfBase{db: db, alias: vals[0], dbName: info.DB, table: info.Def.Name},
		store:     f.store,
		tablets:   ids,
		cols:      info.Def.Columns,
		commitTSO: commitTSO,
	}
	if commitTSO {
		n.cols = withCommitTSO(n.cols)
	}
	n.schema = gmsSchema(n.alias, n.dbName, n.cols)
	noteColumns(ctx, n.alias, n.cols)
	return n, nil
}

// checkTablets rejects ids that do not belong to the table, with the text
// Doris uses for a wrong TABLET clause.
func checkTablets(info *storage.TableInfo, ids []int64) error {
	known := make(map[int64]bool, len(info.TabletIDs))
	for _, id := range info.TabletIDs {
		known[id] = true
	}
	for _, id := range ids {
		if !known[id] {
			return &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Unknown tablet id %d in table %s", id, info.Def.Name)}
		}
	}
	return nil
}

func (f *tabletFunc) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	var it storage.RowIter
	var err error
	if f.commitTSO {
		// Committed rows only: a transaction's own writes have no commit TSO yet.
		it, err = f.store.ScanWithCommitTSO(f.dbName, f.table, f.tablets)
	} else {
		it, err = scanTable(ctx, f.store, f.dbName, f.table, f.tablets)
	}
	if err != nil {
		return nil, err
	}
	return &storageRowIter{it: it, cols: f.cols, convert: rowNeedsConversion(f.cols)}, nil
}

func (f *tabletFunc) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *tabletFunc) WithExpressions(...sql.Expression) (sql.Node, error) { return f, nil }

func (f *tabletFunc) WithDatabase(db sql.Database) (sql.Node, error) {
	cp := *f
	cp.db = db
	return &cp, nil
}
