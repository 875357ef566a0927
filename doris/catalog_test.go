package doris

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// createTables creates db with the given tables straight in the simulator's
// store: thousands of CREATE TABLE statements over HTTP would take long.
func createTables(t *testing.T, s *dorissim.Server, db string, names []string) {
	t.Helper()
	ct, err := storage.ParseCreateTable("CREATE TABLE x (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store().CreateDatabase(db, true); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		def := ct.Def
		def.Name = n
		if err := s.Store().CreateTable(db, def, false); err != nil {
			t.Fatalf("create %s.%s: %v", db, n, err)
		}
	}
}

func TestCatalogListsPastTheStatementRowLimit(t *testing.T) {
	s, c := startFE(t, "UTC")
	// 10,001 tables: one more than the statement API returns at most.
	// Upper- and lower-case names interleave in byte order, and a page
	// boundary falls between names that differ only in case.
	var tables []string
	for i := 0; i < 5000; i++ {
		tables = append(tables, fmt.Sprintf("T%05d", i), fmt.Sprintf("t%05d", i))
	}
	tables = append(tables, "A", "a", "it's `odd`")
	createTables(t, s, "bulk", tables)
	var dbs []string
	for i := 0; i < 1001; i++ {
		dbs = append(dbs, fmt.Sprintf("db%04d", i))
		if err := s.Store().CreateDatabase(dbs[i], false); err != nil {
			t.Fatal(err)
		}
	}
	dbs = append(dbs, "bulk")
	slices.Sort(dbs)
	slices.Sort(tables)

	gotDBs, err := ListDatabases(testCtx(t), c)
	if err != nil || !slices.Equal(gotDBs, dbs) {
		t.Errorf("ListDatabases: %d databases (first %q, last %q), %v; want %d", len(gotDBs), firstName(gotDBs), lastName(gotDBs), err, len(dbs))
	}
	got, err := ListTables(testCtx(t), c, "bulk")
	if err != nil || !slices.Equal(got, tables) {
		t.Errorf("ListTables: %d tables (first %q, last %q), %v; want %d", len(got), firstName(got), lastName(got), err, len(tables))
	}
	for _, tc := range []struct {
		db, table string
		want      bool
	}{
		{"bulk", lastName(tables), true},
		{"bulk", "it's `odd`", true},
		{"bulk", "a", true},
		{"bulk", "t99999", false},
		{"bulk", "T00000 ", false},
		{"BULK", "t00000", false},
		{"nodb", "t00000", false},
	} {
		if ok, err := TableExists(testCtx(t), c, tc.db, tc.table); err != nil || ok != tc.want {
			t.Errorf("TableExists(%s, %s) = %v, %v; want %v", tc.db, tc.table, ok, err, tc.want)
		}
	}
	if got, err := ListTables(testCtx(t), c, "nodb"); err != nil || len(got) != 0 {
		t.Errorf("tables of a missing database: %q %v", got, err)
	}
}

func firstName(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func lastName(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// A listing whose pages do not continue in byte order may have skipped
// names: it fails rather than report what it saw.
func TestCatalogRefusesAListingOutOfOrder(t *testing.T) {
	page := make([]string, 1000) // catalogPage
	for i := range page {
		page[i] = fmt.Sprintf(`["n%04d"]`, i)
	}
	full := resultSet(`[{"name":"TABLE_NAME","type":"VARCHAR"}]`, "["+strings.Join(page, ",")+"]")
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Stmt string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		if strings.Contains(req.Stmt, "> 'n0999'") {
			writeJSON(w, resultSet(`[{"name":"TABLE_NAME","type":"VARCHAR"}]`, `[["a"]]`))
			return
		}
		writeJSON(w, full)
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	if got, err := ListTables(testCtx(t), c, "shop"); err == nil || !strings.Contains(err.Error(), `the FE listed "a" after "n0999", not in byte order`) {
		t.Fatalf("ListTables = %d tables, %v; want an out-of-order error", len(got), err)
	}
}

func TestCatalogSkipsSystemDatabasesAndCannotTellOnFailure(t *testing.T) {
	f := newFE(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Stmt string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		if strings.Contains(req.Stmt, "`schemata`") {
			writeJSON(w, resultSet(`[{"name":"SCHEMA_NAME","type":"VARCHAR"}]`, `[["__internal_schema"],["information_schema"],["mysql"],["odd db"],["shop"]]`))
			return
		}
		writeJSON(w, `{"msg":"errCode = 2, detailMessage = backend not alive","code":1,"data":null,"count":0}`)
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	if dbs, err := ListDatabases(testCtx(t), c); err != nil || strings.Join(dbs, ",") != "odd db,shop" {
		t.Fatalf("databases %q %v", dbs, err)
	}
	if ok, err := TableExists(testCtx(t), c, "shop", "orders"); err == nil || !strings.Contains(err.Error(), "check table shop.orders") {
		t.Fatalf("TableExists on a failing FE = %v, %v; want an error naming the table", ok, err)
	}
	if _, err := ListTables(testCtx(t), c, "shop"); err == nil || !strings.Contains(err.Error(), "list tables of shop") {
		t.Fatalf("ListTables on a failing FE = %v; want an error naming the database", err)
	}
}

func TestFirstColumnRejectsNonText(t *testing.T) {
	for _, body := range []string{
		resultSet(`[{"name":"Database","type":"CHAR"}]`, `[[null]]`),
		resultSet(`[{"name":"Database","type":"CHAR"}]`, `[[["nested"]]]`),
		resultSet(`[]`, `[["x"]]`),
	} {
		res, err := ParseStatementResponse([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if _, err := FirstColumn(res); err == nil {
			t.Fatalf("accepted %s", body)
		}
	}
}
