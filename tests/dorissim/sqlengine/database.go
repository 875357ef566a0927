package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// database is a read-through view of one storage database: every lookup asks
// storage, so DDL done directly on the Store is visible at once.
type database struct {
	store *storage.Store
	name  string
}

var _ sql.Database = (*database)(nil)

func (d *database) Name() string { return d.name }

func (d *database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	// The exact name first, without copying every name of the database:
	// information_schema looks up each table of a database in turn.
	if info, err := d.store.Table(d.name, name); err == nil {
		t := newTable(d.store, info)
		noteColumns(ctx, t.name, info.Def.Columns)
		return t, true, nil
	}
	names, err := d.store.Tables(d.name)
	if err != nil {
		return nil, false, err
	}
	actual := ""
	for _, n := range names {
		if n == name {
			actual = n
			break
		}
		if actual == "" && strings.EqualFold(n, name) {
			actual = n
		}
	}
	if actual == "" {
		return nil, false, nil
	}
	info, err := d.store.Table(d.name, actual)
	if err != nil {
		return nil, false, err
	}
	t := newTable(d.store, info)
	noteColumns(ctx, t.name, info.Def.Columns)
	return t, true, nil
}

func (d *database) GetTableNames(*sql.Context) ([]string, error) {
	return d.store.Tables(d.name)
}
