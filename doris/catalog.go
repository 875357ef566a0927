package doris

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// systemDatabases hold Doris's own catalogs; no user table lives there.
var systemDatabases = map[string]bool{"information_schema": true, "mysql": true, "__internal_schema": true}

// catalogPage is how many names one listing statement asks for. The
// statement API returns at most `limit` rows (1000 unless the request says
// otherwise, 10000 at most), so SHOW DATABASES and SHOW TABLES lose every
// name past that. Listings therefore page through information_schema by
// keyset (`name > 'last' ORDER BY name LIMIT 1000`): a page of this size is
// never cut by the API, so a shorter page is the last one. Keyset rather
// than OFFSET because a table created or dropped between two pages would
// shift every later offset and let a table that existed all along slip
// between pages. Doris compares names byte by byte, so the order and the
// `>` agree for every name.
const catalogPage = 1000

// ListDatabases lists the databases the user can see, system databases
// left out.
func ListDatabases(ctx context.Context, c *Client) ([]string, error) {
	names, err := pageNames(ctx, c, "SCHEMA_NAME", "schemata", "")
	if err != nil {
		return nil, fmt.Errorf("list databases: %w", err)
	}
	out := names[:0]
	for _, n := range names {
		if !systemDatabases[strings.ToLower(n)] {
			out = append(out, n)
		}
	}
	return out, nil
}

// ListTables lists every table and view of db, in byte order. A database
// that does not exist has none.
func ListTables(ctx context.Context, c *Client, db string) ([]string, error) {
	if err := ValidateLiteral(db); err != nil {
		return nil, fmt.Errorf("list tables of %s: database name: %w", db, err)
	}
	names, err := pageNames(ctx, c, "TABLE_NAME", "tables", "`TABLE_SCHEMA` = "+QuoteLiteral(db))
	if err != nil {
		return nil, fmt.Errorf("list tables of %s: %w", db, err)
	}
	return names, nil
}

// TableExists asks the FE whether db.table exists. false means the FE
// answered that it does not (a missing database has no tables); when the
// FE cannot be asked or its answer cannot be read, the error says so and
// the table must be taken as still there.
func TableExists(ctx context.Context, c *Client, db, table string) (bool, error) {
	for field, v := range map[string]string{"database": db, "table": table} {
		if err := ValidateLiteral(v); err != nil {
			return false, fmt.Errorf("check table %s.%s: %s name: %w", db, table, field, err)
		}
	}
	stmt := "SELECT `TABLE_NAME` FROM `information_schema`.`tables` WHERE `TABLE_SCHEMA` = " + QuoteLiteral(db) +
		" AND `TABLE_NAME` = " + QuoteLiteral(table)
	res, err := Statement(ctx, c, stmt)
	if err != nil {
		return false, fmt.Errorf("check table %s.%s: %w", db, table, err)
	}
	names, err := FirstColumn(res)
	if err != nil {
		return false, fmt.Errorf("check table %s.%s: %w", db, table, err)
	}
	for _, n := range names {
		if n != table {
			return false, fmt.Errorf("check table %s.%s: the FE answered with table %q", db, table, n)
		}
	}
	return len(names) > 0, nil
}

// pageNames reads column col of information_schema.<table>, filtered by
// where (may be empty), in byte order, page after page.
func pageNames(ctx context.Context, c *Client, col, table, where string) ([]string, error) {
	var all []string
	for {
		stmt := pageSQL(col, table, where, all)
		res, err := Statement(ctx, c, stmt)
		if err != nil {
			return nil, err
		}
		names, err := FirstColumn(res)
		if err != nil {
			return nil, err
		}
		// A page that does not continue the order would make the listing
		// loop or miss names; refuse it rather than report a short list.
		for _, n := range names {
			if k := len(all); k > 0 && n <= all[k-1] {
				return nil, fmt.Errorf("the FE listed %q after %q, not in byte order, so the listing may be incomplete (%s)", n, all[k-1], stmt)
			}
			all = append(all, n)
		}
		if len(names) < catalogPage {
			return all, nil
		}
	}
}

// pageSQL selects the page of names that follows seen, the names listed
// so far.
func pageSQL(col, table, where string, seen []string) string {
	var conds []string
	if where != "" {
		conds = append(conds, where)
	}
	if len(seen) > 0 {
		conds = append(conds, QuoteIdent(col)+" > "+QuoteLiteral(seen[len(seen)-1]))
	}
	stmt := "SELECT " + QuoteIdent(col) + " FROM `information_schema`." + QuoteIdent(table)
	if len(conds) > 0 {
		stmt += " WHERE " + strings.Join(conds, " AND ")
	}
	return stmt + " ORDER BY " + QuoteIdent(col) + " LIMIT " + strconv.Itoa(catalogPage)
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
