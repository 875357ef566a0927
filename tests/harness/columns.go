package harness

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// TableColumns lists db.table's columns as SHOW CREATE TABLE prints them,
// in order.
func TableColumns(t *testing.T, srv *dorissim.Server, db, table string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := srv.Query(ctx, "SHOW CREATE TABLE "+QuoteIdent(db)+"."+QuoteIdent(table))
	if err != nil || len(res) != 1 || len(res[0]) < 2 {
		t.Fatalf("show create table %s.%s: %v %v", db, table, res, err)
	}
	p, err := doris.ParseShowCreateTable(fmt.Sprint(res[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(p.Columns))
	for _, c := range p.Columns {
		out = append(out, c.Name)
	}
	return out
}
