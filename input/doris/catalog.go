package doris

import (
	"context"
	"fmt"
	"strings"
)

// systemDatabases hold Doris's own catalogs; no user table lives there.
var systemDatabases = map[string]bool{"information_schema": true, "mysql": true, "__internal_schema": true}

// ListDatabases runs SHOW DATABASES: the databases the user can see, system
// databases left out.
func (c *Client) ListDatabases(ctx context.Context) ([]string, error) {
	res, err := c.Statement(ctx, "SHOW DATABASES")
	if err != nil {
		return nil, fmt.Errorf("show databases: %w", err)
	}
	names, err := FirstColumn(res)
	if err != nil {
		return nil, fmt.Errorf("show databases: %w", err)
	}
	out := names[:0]
	for _, n := range names {
		if !systemDatabases[strings.ToLower(n)] {
			out = append(out, n)
		}
	}
	return out, nil
}

// ListTables runs SHOW TABLES FROM db.
func (c *Client) ListTables(ctx context.Context, db string) ([]string, error) {
	res, err := c.Statement(ctx, "SHOW TABLES FROM "+QuoteIdent(db))
	if err != nil {
		return nil, fmt.Errorf("show tables from %s: %w", db, err)
	}
	names, err := FirstColumn(res)
	if err != nil {
		return nil, fmt.Errorf("show tables from %s: %w", db, err)
	}
	return names, nil
}

// TableExists tells whether db.table is listed by SHOW TABLES. A missing
// database is a missing table, not an error.
func (c *Client) TableExists(ctx context.Context, db, table string) (bool, error) {
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return false, err
	}
	found := false
	for _, d := range dbs {
		found = found || d == db
	}
	if !found {
		return false, nil
	}
	tables, err := c.ListTables(ctx, db)
	if err != nil {
		return false, err
	}
	for _, t := range tables {
		if t == table {
			return true, nil
		}
	}
	return false, nil
}

// FirstColumn returns the first cell of every row as text, failing on a
// result without columns or with a cell that is not text.
func FirstColumn(res *StatementResult) ([]string, error) {
	if len(res.Columns) == 0 && len(res.Rows) > 0 {
		return nil, fmt.Errorf("result has rows but no columns")
	}
	out := make([]string, 0, len(res.Rows))
	for i := range res.Rows {
		v, ok := res.CellText(i, 0)
		if !ok {
			return nil, fmt.Errorf("row %d has no text in its first column: %v", i, res.Rows[i])
		}
		out = append(out, v)
	}
	return out, nil
}
