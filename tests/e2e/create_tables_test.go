package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const binlogProps = `PROPERTIES ("replication_num" = "1", "binlog.enable" = "true", "binlog.format" = "ROW")`

// sourceTables are the tables of the replicated database: UNIQUE and
// DUPLICATE KEY, VARCHAR and composite keys, DECIMAL, DATETIME(6),
// LARGEINT, ARRAY, JSON, MAP and STRUCT, comments and NOT NULL.
var sourceTables = map[string]string{
	"orders": "CREATE TABLE src.orders (`order_no` VARCHAR(32) NOT NULL COMMENT 'business key', `qty` INT NOT NULL, " +
		"`amount` DECIMAL(20, 4), `created` DATETIME(6), `big` LARGEINT, `tags` ARRAY<INT>, `doc` JSON, `note` STRING) " +
		"UNIQUE KEY(`order_no`) COMMENT 'orders of the shop' DISTRIBUTED BY HASH(`order_no`) BUCKETS 3 " + binlogProps,
	"accounts": "CREATE TABLE src.accounts (`region` VARCHAR(8) NOT NULL, `id` BIGINT NOT NULL, `balance` DECIMAL(38, 10), `opened` DATE) " +
		"UNIQUE KEY(`region`, `id`) DISTRIBUTED BY HASH(`id`) BUCKETS 2 " + binlogProps,
	"events": "CREATE TABLE src.events (`ts` DATETIME(6) NOT NULL, `kind` VARCHAR(16) NOT NULL, `payload` JSON, `vals` ARRAY<VARCHAR(8)>) " +
		"DUPLICATE KEY(`ts`, `kind`) DISTRIBUTED BY RANDOM BUCKETS 2 " + binlogProps,
	"logs": "CREATE TABLE src.logs (`id` BIGINT NOT NULL, `msg` STRING, `level` TINYINT) " +
		"DUPLICATE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 " + binlogProps,
	"flags": "CREATE TABLE src.flags (`k` INT NOT NULL, `on` BOOLEAN, `ratio` DOUBLE, `label` CHAR(4), `m` MAP<VARCHAR(8), INT>, `st` STRUCT<a:INT, b:VARCHAR(4)>) " +
		"UNIQUE KEY(`k`) DISTRIBUTED BY HASH(`k`) BUCKETS 1 " + binlogProps,
}

// sourceRows fills the tables, then changes the keyed ones.
var sourceRows = []string{
	"INSERT INTO src.orders VALUES ('A-1', 1, 12.3456, '2026-01-02 03:04:05.123456', 170141183460469231731687303715884105727, [1, 2], '{\"a\": 1}', 'x'), " +
		"('A-2', 2, -0.0001, '2026-01-02 03:04:05.000001', -170141183460469231731687303715884105728, [], '[1, \"b\"]', NULL), " +
		"('B-3', 3, NULL, NULL, NULL, NULL, NULL, 'quote '' and \\\\ backslash')",
	"INSERT INTO src.accounts VALUES ('eu', 1, 1234567890123456789012345678.0123456789, '2026-03-04'), ('us', 1, 0, NULL), ('eu', 2, NULL, '1999-12-31')",
	"INSERT INTO src.events VALUES ('2026-01-01 00:00:00.000001', 'click', '{\"x\": [1, 2]}', ['a', 'b']), ('2026-01-01 00:00:00.000001', 'click', NULL, NULL), ('2026-01-01 00:00:01', 'view', '{}', [])",
	"INSERT INTO src.logs VALUES (1, 'hello', 1), (1, 'hello', 1), (2, NULL, NULL)",
	"INSERT INTO src.flags VALUES (1, true, 0.5, 'ab', {'x': 1, 'y': 2}, '{\"a\": 1, \"b\": \"q\"}'), (2, false, NULL, NULL, NULL, NULL)",
}

var sourceChanges = []string{
	"UPDATE src.orders SET qty = 10, note = 'changed' WHERE order_no = 'A-1'",
	"DELETE FROM src.orders WHERE order_no = 'A-2'",
	"INSERT INTO src.orders VALUES ('C-4', 4, 1.5, '2026-05-06 07:08:09.999999', 42, [3], '{\"c\": true}', 'new')",
	"UPDATE src.accounts SET balance = 5.5 WHERE region = 'us' AND id = 1",
	"DELETE FROM src.flags WHERE k = 2",
	"INSERT INTO src.logs VALUES (3, 'later', 2)",
	"INSERT INTO src.events VALUES ('2026-01-02 00:00:00', 'buy', '{\"sku\": \"x\"}', ['c'])",
}

// tableRows reads every row of db.table as text, sorted: the tables'
// contents compare as multisets, DUPLICATE KEY duplicates included.
func tableRows(t *testing.T, srv *dorissim.Server, db, table string) []string {
	t.Helper()
	res, err := srv.Query(ctxTimeout(t, 30*time.Second), "SELECT * FROM "+doris.QualifiedTable(db, table))
	if err != nil {
		t.Fatalf("read %s.%s: %v", db, table, err)
	}
	out := make([]string, len(res))
	for i, r := range res {
		cells := make([]string, len(r))
		for j, v := range r {
			cells[j] = fmt.Sprint(v)
		}
		out[i] = strings.Join(cells, " | ")
	}
	sort.Strings(out)
	return out
}

// waitSameRows waits until dst.table holds the rows of src.table.
func waitSameRows(t *testing.T, srv *dorissim.Server, table string, timeout time.Duration) {
	t.Helper()
	want := tableRows(t, srv, "src", table)
	deadline := time.Now().Add(timeout)
	var got []string
	for time.Now().Before(deadline) {
		if exists(t, srv, "dst", table) {
			if got = tableRows(t, srv, "dst", table); reflect.DeepEqual(got, want) {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("dst.%s after %s:\n got  %q\n want %q", table, timeout, got, want)
}

func exists(t *testing.T, srv *dorissim.Server, db, table string) bool {
	res, err := srv.Query(ctxTimeout(t, 30*time.Second), "SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = "+doris.QuoteLiteral(db)+" AND TABLE_NAME = "+doris.QuoteLiteral(table))
	return err == nil && len(res) == 1
}

func showCreate(t *testing.T, srv *dorissim.Server, db, table string) *doris.TableProperties {
	t.Helper()
	res, err := srv.Query(ctxTimeout(t, 30*time.Second), "SHOW CREATE TABLE "+doris.QualifiedTable(db, table))
	if err != nil || len(res) != 1 || len(res[0]) < 2 {
		t.Fatalf("SHOW CREATE TABLE %s.%s: %v %v", db, table, res, err)
	}
	p, err := doris.ParseShowCreateTable(fmt.Sprint(res[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sameTable checks that the target has the source's columns (names, exact
// types, nullability, comments, order), key model, key columns and comment.
func sameTable(t *testing.T, srv *dorissim.Server, table string) {
	t.Helper()
	src, dst := showCreate(t, srv, "src", table), showCreate(t, srv, "dst", table)
	if !reflect.DeepEqual(src.Columns, dst.Columns) || !reflect.DeepEqual(src.Nullable, dst.Nullable) {
		t.Errorf("%s columns:\n src %+v %v\n dst %+v %v", table, src.Columns, src.Nullable, dst.Columns, dst.Nullable)
	}
	if src.KeysType != dst.KeysType || !reflect.DeepEqual(src.KeyColumns, dst.KeyColumns) || src.Comment != dst.Comment {
		t.Errorf("%s keys: src %s %v %q, dst %s %v %q", table, src.KeysType, src.KeyColumns, src.Comment, dst.KeysType, dst.KeyColumns, dst.Comment)
	}
	if dst.KeysType == "UNIQUE_KEYS" && !dst.MergeOnWrite {
		t.Errorf("%s: created UNIQUE KEY table is not merge-on-write", table)
	}
}

// A whole database replicated into a database that does not exist, with
// nothing created by hand: every target is created from the source table's
// doris_schema, with its exact types and key, and holds the source's rows;
// a table created in the source while the stream runs gets its target and
// all its rows.
func TestCreateTablesReplicatesDatabase(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE src")
	for _, ddl := range sourceTables {
		harness.Exec(t, srv, ddl)
	}
	harness.Exec(t, srv, sourceRows...)

	in := harness.SelectYAML(srv, "include: [ 'src\\..*' ]", "scan_mode: initial", "table_discovery_interval: 1s")
	out := loadOutputYAML(srv, "table_identifier: dst.${! @table }",
		"create_tables:\n  enabled: true\n  properties:\n    replication_num: \"1\"")
	startLoadStream(t, in, harness.MemoryCache, out)

	for table := range sourceTables {
		waitSameRows(t, srv, table, 60*time.Second)
	}
	harness.Exec(t, srv, sourceChanges...)
	for table := range sourceTables {
		waitSameRows(t, srv, table, 60*time.Second)
		sameTable(t, srv, table)
	}

	// A table created while the stream runs, with rows before and after its
	// discovery.
	harness.Exec(t, srv, "CREATE TABLE src.late (`code` VARCHAR(12) NOT NULL, `price` DECIMAL(9, 3), `at` DATETIME(3)) "+
		"UNIQUE KEY(`code`) DISTRIBUTED BY HASH(`code`) BUCKETS 1 "+binlogProps,
		"INSERT INTO src.late VALUES ('x', 1.5, '2026-01-01 00:00:00.123'), ('y', NULL, NULL)")
	waitSameRows(t, srv, "late", 60*time.Second)
	harness.Exec(t, srv, "INSERT INTO src.late VALUES ('z', 2.25, '2026-02-03 04:05:06.789')", "DELETE FROM src.late WHERE code = 'x'")
	waitSameRows(t, srv, "late", 60*time.Second)
	sameTable(t, srv, "late")
}

// Messages of another input, carrying a Common `schema` and `key_columns`
// as Redpanda Connect's CDC inputs attach them, create the tables the
// docs/writing-into-doris.md documents: types mapped from Common, a STRING key as
// VARCHAR(65533), a UNIQUE KEY merge-on-write table hashed on the key with
// the sequence column; keyless messages a DUPLICATE KEY table distributed
// at random. A target whose messages carry no schema fails its batch with
// an error naming it.
func TestCreateTablesFromCommonSchema(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	mapping := `mapping: |
  meta schema = {
    "name": "t", "type": "OBJECT", "children": [
      {"name": "sku", "type": "STRING"},
      {"name": "qty", "type": "INT32", "optional": true},
      {"name": "price", "type": "DECIMAL", "precision": 10, "scale": 2, "optional": true},
      {"name": "seen", "type": "TIMESTAMP", "unit": "MICROS", "adjust_to_utc": false, "optional": true},
      {"name": "tags", "type": "ARRAY", "optional": true, "children": [{"name": "element", "type": "STRING", "optional": true}]},
      {"name": "attrs", "type": "ANY", "optional": true}
    ]
  }
  meta key_columns = if this.keyed { ["sku"] } else { [] }
  meta operation = "insert"
  meta tso = this.qty
  meta lsn = 0
  meta target = if this.keyed { "items" } else { "item_log" }
  root = this.without("keyed")`
	out := loadOutputYAML(srv, `table_identifier: ods.${! @target }`, "sequence_column: _seq",
		"create_tables:\n  enabled: true\n  buckets: 4\n  properties:\n    replication_num: \"1\"")
	ls := startLoadStream(t, "", "", out, mapping)
	msg := func(body string) *service.Message { return service.NewMessage([]byte(body)) }
	if err := ls.write(t,
		msg(`{"keyed": true, "sku": "a-1", "qty": 1, "price": "12.50", "seen": "2026-01-02 03:04:05.123456", "tags": ["x", "y"], "attrs": {"k": [1, 2]}}`),
		msg(`{"keyed": true, "sku": "a-1", "qty": 2, "price": "13.00", "seen": null, "tags": [], "attrs": null}`),
		msg(`{"keyed": true, "sku": "b-2", "qty": 3, "price": null, "seen": "2026-01-02 03:04:05", "tags": null, "attrs": 7}`),
		msg(`{"keyed": false, "sku": "a-1", "qty": 4, "price": "1.00"}`),
		msg(`{"keyed": false, "sku": "a-1", "qty": 4, "price": "1.00"}`),
	); err != nil {
		t.Fatal(err)
	}
	items := showCreate(t, srv, "ods", "items")
	wantCols := []doris.ColumnDef{
		{Name: "sku", Type: "varchar(65533)"}, {Name: "qty", Type: "int"}, {Name: "price", Type: "decimal(10,2)"},
		{Name: "seen", Type: "datetime(6)"}, {Name: "tags", Type: "array<string>"}, {Name: "attrs", Type: "json"},
		{Name: "_seq", Type: "bigint", Comment: "source change order (doris_load sequence_column)"},
	}
	if !reflect.DeepEqual(items.Columns, wantCols) || items.Nullable["sku"] || !items.Nullable["qty"] {
		t.Errorf("ods.items columns %+v nullable %v", items.Columns, items.Nullable)
	}
	if items.KeysType != "UNIQUE_KEYS" || !reflect.DeepEqual(items.KeyColumns, []string{"sku"}) || !items.MergeOnWrite ||
		items.Properties["function_column.sequence_col"] != "_seq" {
		t.Errorf("ods.items keys %s %v, properties %v", items.KeysType, items.KeyColumns, items.Properties)
	}
	if got := tableRows(t, srv, "ods", "items"); len(got) != 2 || !strings.HasPrefix(got[0], "a-1 | 2 | 13") {
		t.Errorf("ods.items rows %q", got)
	}
	log := showCreate(t, srv, "ods", "item_log")
	if log.KeysType != "DUP_KEYS" || len(log.KeyColumns) != 0 || log.Properties["enable_duplicate_without_keys_by_default"] != "true" {
		t.Errorf("ods.item_log keys %s %v, properties %v", log.KeysType, log.KeyColumns, log.Properties)
	}
	if got := tableRows(t, srv, "ods", "item_log"); len(got) != 2 {
		t.Errorf("ods.item_log rows %q", got)
	}

	// Without schema metadata there is nothing to create the target from.
	bare := startLoadStream(t, "", "", loadOutputYAML(srv, "table_identifier: ods.bare", "create_tables:\n  enabled: true"))
	err := bare.write(t, msg(`{"id": 1}`))
	if err == nil || !strings.Contains(err.Error(), "ods.bare") || !strings.Contains(err.Error(), "no `schema` metadata") {
		t.Fatalf("load into a missing target without schema: %v", err)
	}
	if exists(t, srv, "ods", "bare") {
		t.Fatal("ods.bare was created from nothing")
	}
}

// simStats reads the simulator's request counts.
func simStats(t *testing.T, srv *dorissim.Server) dorissim.Stats {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxTimeout(t, 30*time.Second), http.MethodGet, "http://"+srv.HTTPAddr()+"/api/_sim/stats", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("root", "")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data dorissim.Stats `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

// Creating 1,000 targets at start-up: one batch per 100 targets, every
// message carrying a Common schema. Logs the time and the FE requests per
// table, and holds the requests to what create_tables promises: one
// listing of the database (two queries when it is missing), one CREATE
// DATABASE, and per table one CREATE TABLE and the key-model lookup the
// load needs anyway.
func TestCreateTablesThousandTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 1,000 tables")
	}
	const targets, perBatch = 1000, 100
	srv := harness.StartSim(t, dorissim.Config{})
	mapping := `mapping: |
  meta schema = {"name": "t", "type": "OBJECT", "children": [
    {"name": "id", "type": "INT64"}, {"name": "v", "type": "STRING", "optional": true}]}
  meta key_columns = ["id"]
  meta operation = "insert"`
	out := loadOutputYAML(srv, `table_identifier: many.${! json("t") }`, "create_tables:\n  enabled: true")
	ls := startLoadStream(t, "", "", out, mapping)
	before := simStats(t, srv)
	start := time.Now()
	for b := 0; b < targets/perBatch; b++ {
		batch := make([]*service.Message, perBatch)
		for i := range batch {
			batch[i] = service.NewMessage(fmt.Appendf(nil, `{"t": "t%04d", "id": %d, "v": "x"}`, b*perBatch+i, i))
		}
		if err := ls.write(t, batch...); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	after := simStats(t, srv)
	count := func(s dorissim.Stats, route string) int64 { return s.HTTP[route] }
	statements := count(after, "POST /api/query/default_cluster/information_schema") - count(before, "POST /api/query/default_cluster/information_schema")
	fe := after.FERequests() - before.FERequests()
	t.Logf("created %d targets in %s (%.1f ms per table); FE requests %d (%.2f per table), of them statements %d (%.2f per table)",
		targets, elapsed.Round(time.Millisecond), float64(elapsed.Milliseconds())/targets, fe, float64(fe)/targets, statements, float64(statements)/targets)
	if want := int64(targets + 3); statements != want {
		t.Errorf("statements: %d, want %d (list tables, list schemata, CREATE DATABASE, per target one CREATE TABLE; the schema check knows a created table's columns)", statements, want)
	}
	if n := countRows(t, srv, "many", "t0999"); n != 1 {
		t.Errorf("many.t0999 holds %d rows", n)
	}
}

// An existing target is loaded as it is, never changed; a template shapes
// the tables it creates; and a pipeline that finds its target created by
// another one in the meantime ("already exists", the template having no IF
// NOT EXISTS) counts it as created and loads.
func TestCreateTablesTemplateExistingAndRace(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE ods",
		"CREATE TABLE ods.kept (`id` BIGINT NOT NULL, `v` VARCHAR(4), `extra` INT) DUPLICATE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
	keptBefore := showCreate(t, srv, "ods", "kept")
	mapping := `mapping: |
  meta schema = {"name": "t", "type": "OBJECT", "children": [
    {"name": "id", "type": "INT64"}, {"name": "v", "type": "STRING", "optional": true}]}
  meta key_columns = ["id"]
  meta target = this.target
  root = this.without("target")`
	tmpl := `CREATE TABLE {database}.{table} (\n{columns}\n) UNIQUE KEY({key_columns}) DISTRIBUTED BY HASH({key_columns}) BUCKETS 2 PROPERTIES (\"replication_num\" = \"1\")`
	out := loadOutputYAML(srv, "table_identifier: ods.${! @target }", "create_tables:\n  enabled: true\n  template: \""+tmpl+"\"")
	msg := func(target string, id int) *service.Message {
		return service.NewMessage(fmt.Appendf(nil, `{"target": %q, "id": %d, "v": "x"}`, target, id))
	}

	b := startLoadStream(t, "", "", out, mapping)
	if err := b.write(t, msg("kept", 1)); err != nil { // b lists ods: only kept
		t.Fatal(err)
	}
	if got := showCreate(t, srv, "ods", "kept"); !reflect.DeepEqual(got, keptBefore) {
		t.Errorf("ods.kept changed:\n before %+v\n after  %+v", keptBefore, got)
	}
	a := startLoadStream(t, "", "", out, mapping)
	if err := a.write(t, msg("race", 1)); err != nil {
		t.Fatal(err)
	}
	if err := b.write(t, msg("race", 2)); err != nil {
		t.Fatalf("the second pipeline's load into the target the first created: %v", err)
	}
	if n := countRows(t, srv, "ods", "race"); n != 2 {
		t.Errorf("ods.race holds %d rows, want 2", n)
	}
	race := showCreate(t, srv, "ods", "race")
	res, err := srv.Query(ctxTimeout(t, 30*time.Second), "SHOW CREATE TABLE ods.race")
	if err != nil || race.KeysType != "UNIQUE_KEYS" || !strings.Contains(fmt.Sprint(res), "BUCKETS 2") {
		t.Errorf("ods.race not made by the template: %v %v", res, err)
	}
}

// A target created by hand after this output listed its database, with
// fewer columns than the messages: the output's CREATE TABLE finds it
// there, so the schema check reads its real columns rather than the ones
// the output would have created, and the column it lacks stops the batch
// instead of being dropped by Stream Load.
func TestCreateTablesSeedsOnlyWhatItCreated(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	mapping := `mapping: |
  meta schema = {"name": "t", "type": "OBJECT", "children": [
    {"name": "id", "type": "INT64"}, {"name": "v", "type": "STRING", "optional": true}]}
  meta key_columns = ["id"]
  meta target = this.target
  root = this.without("target")`
	out := loadOutputYAML(srv, "table_identifier: ods.${! @target }", "retry_in_order: false", "create_tables:\n  enabled: true\n  properties:\n    replication_num: \"1\"")
	msg := func(target string, id int) *service.Message {
		return service.NewMessage(fmt.Appendf(nil, `{"target": %q, "id": %d, "v": "x"}`, target, id))
	}
	ls := startLoadStream(t, "", "", out, mapping)
	if err := ls.write(t, msg("first", 1)); err != nil { // lists ods, creates it and ods.first
		t.Fatal(err)
	}
	if cols := harness.TableColumns(t, srv, "ods", "first"); !reflect.DeepEqual(cols, []string{"id", "v"}) {
		t.Fatalf("ods.first columns %v", cols)
	}
	harness.Exec(t, srv, "CREATE TABLE ods.late (`id` BIGINT NOT NULL) UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
	err := ls.write(t, msg("late", 1))
	if err == nil || !strings.Contains(err.Error(), "ods.late") || !strings.Contains(err.Error(), "column(s) v") {
		t.Fatalf("a message with a column the hand-made target lacks: %v", err)
	}
	if n := countRows(t, srv, "ods", "late"); n != 0 {
		t.Fatalf("%d rows loaded into ods.late without their column v", n)
	}
}
