package sqlengine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// table is the GMS view of one storage table. It deliberately declares no
// primary key, so GMS never checks key uniqueness itself: UNIQUE KEY tables
// upsert inside storage as Doris does.
type table struct {
	store   *storage.Store
	db      string
	name    string
	cols    []storage.Column
	schema  sql.Schema
	convert bool
}

var (
	_ sql.Table           = (*table)(nil)
	_ sql.InsertableTable = (*table)(nil)
	_ sql.UpdatableTable  = (*table)(nil)
	_ sql.DeletableTable  = (*table)(nil)
)

func newTable(store *storage.Store, info *storage.TableInfo) *table {
	return &table{
		store:   store,
		db:      info.DB,
		name:    info.Def.Name,
		cols:    info.Def.Columns,
		schema:  gmsSchema(info.Def.Name, info.DB, info.Def.Columns),
		convert: rowNeedsConversion(info.Def.Columns),
	}
}

func (t *table) Name() string               { return t.name }
func (t *table) String() string             { return t.db + "." + t.name }
func (t *table) Schema() sql.Schema         { return t.schema }
func (t *table) Collation() sql.CollationID { return sql.Collation_Default }
func (t *table) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(singlePartition{}), nil
}

func (t *table) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	it, err := scanTable(ctx, t.store, t.db, t.name, nil)
	if err != nil {
		return nil, err
	}
	return &storageRowIter{it: it, cols: t.cols, convert: t.convert}, nil
}

func (t *table) Inserter(*sql.Context) sql.RowInserter { return t.editor() }
func (t *table) Updater(*sql.Context) sql.RowUpdater   { return t.editor() }
func (t *table) Deleter(*sql.Context) sql.RowDeleter   { return t.editor() }

func (t *table) editor() *tableEditor {
	return &tableEditor{store: t.store, db: t.db, table: t.name, cols: t.cols}
}

// singlePartition keeps a table scan in one partition: storage already
// returns a consistent snapshot and GMS must not parallelise over it.
type singlePartition struct{}

func (singlePartition) Key() []byte { return []byte("all") }

// scanTable reads committed rows, or the transaction's view when the
// session's transaction has written already (reads see own writes).
func scanTable(ctx *sql.Context, store *storage.Store, db, name string, tablets []int64) (storage.RowIter, error) {
	if tx := currentTxn(ctx); tx != nil && tx.st != nil {
		it, err := tx.st.Scan(db, name, tablets)
		if err != nil {
			return nil, fmt.Errorf("scan %s.%s in transaction: %w", db, name, err)
		}
		return it, nil
	}
	it, err := store.Scan(db, name, tablets)
	if err != nil {
		return nil, fmt.Errorf("scan %s.%s: %w", db, name, err)
	}
	return it, nil
}

// storageRowIter adapts a storage.RowIter to GMS rows.
type storageRowIter struct {
	it      storage.RowIter
	cols    []storage.Column
	convert bool
}

func (r *storageRowIter) Next(ctx *sql.Context) (sql.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	row, err := r.it.Next()
	if err != nil {
		return nil, err
	}
	return rowToGMS(r.cols, r.convert, row), nil
}

func (r *storageRowIter) Close(*sql.Context) error {
	if r.it == nil {
		return nil
	}
	err := r.it.Close()
	r.it = nil
	return err
}

var _ sql.RowIter = (*storageRowIter)(nil)
