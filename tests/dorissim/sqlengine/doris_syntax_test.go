package sqlengine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

func TestTabletScanWithWhereAndLimit(t *testing.T) {
	s, eng, _ := newKV(t)
	for i := 1; i <= 40; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO kv VALUES (%d, 'v%d')", i, i))
	}
	info, err := eng.store.Table("d", "kv")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.TabletIDs) != 4 {
		t.Fatalf("tablets = %v", info.TabletIDs)
	}
	total := 0
	seen := map[any]bool{}
	for _, id := range info.TabletIDs {
		// The snapshot SQL shape of doris-facts §3, with a leading comment.
		q := fmt.Sprintf("/* ApplicationName=Flink ArrowFlightSQL Query */ SELECT `k`, `v` FROM `d`.`kv`  TABLET(%d)  WHERE k > 0", id)
		_, rows := mustRows(t, s, q)
		for _, r := range rows {
			if seen[r[0]] {
				t.Fatalf("key %v in two tablets", r[0])
			}
			seen[r[0]] = true
		}
		total += len(rows)
	}
	if total != 40 {
		t.Fatalf("tablet scans returned %d rows, want 40", total)
	}
	ids := make([]string, len(info.TabletIDs))
	for i, id := range info.TabletIDs {
		ids[i] = fmt.Sprint(id)
	}
	_, rows := mustRows(t, s, "SELECT * FROM `d`.`kv`  TABLET("+strings.Join(ids, ",")+")  WHERE k <= 10 LIMIT 3")
	if len(rows) != 3 {
		t.Fatalf("LIMIT 3 returned %d rows", len(rows))
	}
	for _, r := range rows {
		if r[0].(int32) > 10 {
			t.Fatalf("WHERE k <= 10 returned %v", r)
		}
	}
	_, rows = mustRows(t, s, "SELECT t.v FROM kv TABLET("+strings.Join(ids, ",")+") t WHERE t.k = 7")
	if len(rows) != 1 || rows[0][0] != "v7" {
		t.Fatalf("aliased TABLET scan = %v", rows)
	}
}

func TestShowFrontends(t *testing.T) {
	s, _, _ := newKV(t)
	cols, rows := mustRows(t, s, "show frontends")
	if len(cols) != len(frontendColumns) || len(rows) != 1 {
		t.Fatalf("SHOW FRONTENDS shape: %d columns, %d rows", len(cols), len(rows))
	}
	for i, c := range cols {
		if c.Name != frontendColumns[i] || c.Type.Kind != storage.Char {
			t.Fatalf("column %d = %s %s", i, c.Name, c.Type)
		}
	}
	if rows[0][6] != "29747" || rows[0][1] != "127.0.0.1" || rows[0][4] != "9030" {
		t.Fatalf("SHOW FRONTENDS row = %v", rows[0])
	}
}

func TestShowCreateTableAndCatalog(t *testing.T) {
	s, _, _ := newKV(t)
	cols, rows := mustRows(t, s, "SHOW CREATE TABLE `d`.`kv`")
	if len(cols) != 2 || cols[1].Name != "Create Table" || len(rows) != 1 {
		t.Fatalf("SHOW CREATE TABLE shape: %v %v", cols, rows)
	}
	text := rows[0][1].(string)
	for _, want := range []string{"kv", `"binlog.enable" = "true"`, `"binlog.format" = "ROW"`} {
		if !strings.Contains(text, want) {
			t.Fatalf("SHOW CREATE TABLE lacks %q:\n%s", want, text)
		}
	}
	_, rows = mustRows(t, s, "SHOW TABLES")
	if len(rows) != 1 || rows[0][0] != "kv" {
		t.Fatalf("SHOW TABLES = %v", rows)
	}
	_, rows = mustRows(t, s, "SHOW DATABASES")
	found := false
	for _, r := range rows {
		found = found || r[0] == "d"
	}
	if !found {
		t.Fatalf("SHOW DATABASES = %v", rows)
	}
	mustExec(t, s, "ALTER TABLE kv ADD COLUMN extra DECIMAL(5, 1) NULL COMMENT 'x'")
	mustExec(t, s, "INSERT INTO kv VALUES (1, 'a', 2.5)")
	cols, rows = mustRows(t, s, "SELECT * FROM kv")
	if len(cols) != 3 || storage.FormatValue(cols[2].Type, rows[0][2]) != "2.5" {
		t.Fatalf("after ADD COLUMN: %v %v", cols, rows)
	}
	mustExec(t, s, "ALTER TABLE kv DROP COLUMN extra")
	if se := queryErr(t, s, "ALTER TABLE kv MODIFY COLUMN v VARCHAR(64)"); se.Message != "Not allowed to perform current operation on Table With binlog<row>" {
		t.Fatalf("unsupported ALTER: %q", se.Message)
	}
	mustExec(t, s, `ALTER TABLE kv SET ("binlog.ttl_seconds" = "3600")`)
	mustExec(t, s, "TRUNCATE TABLE kv")
	if _, rows := mustRows(t, s, "SELECT * FROM kv"); len(rows) != 0 {
		t.Fatalf("rows after TRUNCATE: %v", rows)
	}
	mustExec(t, s, "DROP TABLE IF EXISTS kv")
	mustExec(t, s, "DROP TABLE IF EXISTS kv")
	if se := queryErr(t, s, "SELECT * FROM kv"); se.Code != 1146 {
		t.Fatalf("missing table error = %d %s", se.Code, se.Message)
	}
}

func TestSessionVariables(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, "SET exec_mem_limit = 8589934592")
	mustExec(t, s, "SET query_timeout = 3600, time_zone = '+08:00'")
	if got := s.gs.dorisVars["exec_mem_limit"]; got != "8589934592" {
		t.Fatalf("exec_mem_limit remembered as %q", got)
	}
	_, rows := mustRows(t, s, "SELECT @@time_zone")
	if rows[0][0] != "+08:00" {
		t.Fatalf("time_zone = %v", rows[0][0])
	}
	mustExec(t, s, "SET time_zone = 'Asia/Shanghai'")
	mustExec(t, s, "SET autocommit = 1")
	if se := queryErr(t, s, "SET time_zone = 'Mars/Olympus'"); se.Code == 0 {
		t.Fatal("bad time zone accepted")
	}
}

func TestTimeZoneAffectsIncrBounds(t *testing.T) {
	s, _, clock := newKV(t)
	// One commit at 03:04:05 UTC, then time moves on past the windows.
	mustExec(t, s, "INSERT INTO kv VALUES (1, 'a')")
	clock.Set(time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC))
	q := `SELECT k FROM kv@incr('startTimestamp' = '2026-01-02 03:00:00', 'endTimestamp' = '2026-01-02 03:10:00', 'incrementType' = 'DETAIL')`
	if _, rows := mustRows(t, s, q); len(rows) != 1 {
		t.Fatalf("UTC window: %d rows, want 1", len(rows))
	}
	// The same wall-clock window in +08:00 ends at 19:10 UTC the day before.
	mustExec(t, s, "SET time_zone = '+08:00'")
	if _, rows := mustRows(t, s, q); len(rows) != 0 {
		t.Fatalf("+08:00 window: %d rows, want 0", len(rows))
	}
	q8 := `SELECT k FROM kv@incr("startTimestamp" = "2026-01-02 11:00:00", "endTimestamp" = "2026-01-02 11:10:00", "incrementType" = "DETAIL")`
	if _, rows := mustRows(t, s, q8); len(rows) != 1 {
		t.Fatalf("+08:00 shifted window: %d rows, want 1", len(rows))
	}
	mustExec(t, s, "SET time_zone = 'Asia/Shanghai'")
	if _, rows := mustRows(t, s, q8); len(rows) != 1 {
		t.Fatalf("Asia/Shanghai window: %d rows, want 1", len(rows))
	}
}

func TestFromUnixtimeFloorsAndNow(t *testing.T) {
	s, _, _ := newKV(t)
	_, rows := mustRows(t, s, "SELECT FROM_UNIXTIME(1760000000999 / 1000, '%Y-%m-%d %H:%i:%s')")
	if rows[0][0] != "2025-10-09 08:53:20" {
		t.Fatalf("FROM_UNIXTIME in UTC = %v", rows[0][0])
	}
	mustExec(t, s, "SET time_zone = '+08:00'")
	cols, rows := mustRows(t, s, "/* c */ SELECT FROM_UNIXTIME(1760000000123 / 1000, '%Y-%m-%d %H:%i:%s')")
	if rows[0][0] != "2025-10-09 16:53:20" {
		t.Fatalf("FROM_UNIXTIME in +08:00 = %v", rows[0][0])
	}
	if k := cols[0].Type.Kind; k != storage.String && k != storage.Varchar {
		t.Fatalf("FROM_UNIXTIME type = %s", cols[0].Type)
	}
	// NOW() follows the simulator clock (2026-01-02 03:04:05 UTC) in the session zone.
	cols, rows = mustRows(t, s, "SELECT NOW()")
	got, ok := rows[0][0].(time.Time)
	if !ok || cols[0].Type.Kind != storage.DateTime {
		t.Fatalf("NOW() = %T %v (%s)", rows[0][0], rows[0][0], cols[0].Type)
	}
	if want := time.Date(2026, 1, 2, 11, 4, 5, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("NOW() = %v, want %v", got, want)
	}
}

func TestErrorsSurfaceUnchanged(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, "CREATE TABLE plain (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
	se := queryErr(t, s, "SELECT * FROM plain@incr()")
	if se.Message != "INCR query requires ROW binlog enabled on base table." {
		t.Fatalf("message = %q", se.Message)
	}
	se = queryErr(t, s, "SELECT * FROM kv@incr('bogus' = '1')")
	if se.Message != "Unsupported parameter in incr query" {
		t.Fatalf("message = %q", se.Message)
	}
	se = queryErr(t, s, "SELECT * FROM kv@incr('startTimestamp' = '2026-01-02 03:00:00', 'endTimestamp' = '2099-01-01 00:00:00', 'incrementType' = 'DETAIL')")
	if se.Code != 5100 || !strings.Contains(se.Message, "ERR_INCR_WINDOW_NOT_READY") {
		t.Fatalf("future end: %d %q", se.Code, se.Message)
	}
	se = queryErr(t, s, "SELEC 1")
	if se.Code == 0 || se.Message == "" {
		t.Fatalf("syntax error = %+v", se)
	}
	se = queryErr(t, s, "SELECT * FROM nosuchdb.kv@incr()")
	if se.Message == "" {
		t.Fatalf("unknown db error = %+v", se)
	}
}

func TestDupDeleteRejected(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, `CREATE TABLE logs (id INT, msg STRING) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`)
	mustExec(t, s, "INSERT INTO logs VALUES (1, 'a'), (1, 'a')")
	se := queryErr(t, s, "DELETE FROM logs WHERE id = 1")
	if se.Message != "DELETE with predicates is not supported when binlog<row> is enabled" {
		t.Fatalf("DUP delete message = %q", se.Message)
	}
	if _, rows := mustRows(t, s, "SELECT * FROM logs"); len(rows) != 2 {
		t.Fatalf("DUP table after rejected delete: %v", rows)
	}
}

func TestComplexAndSpecialTypesRoundTrip(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, `CREATE TABLE typed (
  id LARGEINT, b BOOLEAN, arr ARRAY<INT>, m MAP<STRING, INT>, st STRUCT<a:INT, b:STRING>, j JSON, dt DATETIME(3), d DATE
) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`)
	mustExec(t, s, `INSERT INTO typed VALUES (170141183460469231731687303715884105727, true, '[1, 2, 3]', '{"x": 1}', '{"a": 7, "b": "s"}', '{"k": [1, 2]}', '2026-01-02 03:04:05.678', '2026-01-02')`)
	cols, rows := mustRows(t, s, "SELECT * FROM typed")
	wantTypes := []string{"LARGEINT", "BOOLEAN", "ARRAY<INT>", "MAP<STRING,INT>", "STRUCT<a:INT,b:STRING>", "JSON", "DATETIME(3)", "DATE"}
	for i, c := range cols {
		if c.Type.String() != wantTypes[i] {
			t.Fatalf("column %s type %s, want %s", c.Name, c.Type, wantTypes[i])
		}
	}
	row := rows[0]
	if fmt.Sprint(row[0]) != "170141183460469231731687303715884105727" || row[1] != true {
		t.Fatalf("largeint/bool = %T %v, %T %v", row[0], row[0], row[1], row[1])
	}
	if !reflect.DeepEqual(row[2], []any{int32(1), int32(2), int32(3)}) {
		t.Fatalf("array = %#v", row[2])
	}
	if !reflect.DeepEqual(row[3], storage.MapValue{Keys: []any{"x"}, Values: []any{int32(1)}}) {
		t.Fatalf("map = %#v", row[3])
	}
	if !reflect.DeepEqual(row[4], []any{int32(7), "s"}) {
		t.Fatalf("struct = %#v", row[4])
	}
	if row[5] != `{"k":[1,2]}` {
		t.Fatalf("json = %#v", row[5])
	}
	if want := time.Date(2026, 1, 2, 3, 4, 5, 678000000, time.UTC); row[6] != want {
		t.Fatalf("datetime = %v", row[6])
	}
	texts := textRows(cols, rows)[0]
	if texts[2] != "[1, 2, 3]" || texts[3] != `{"x":1}` || texts[4] != `{"a":7, "b":"s"}` {
		t.Fatalf("text forms = %v", texts)
	}
	// Doris collection literals.
	mustExec(t, s, `INSERT INTO typed (id, b, arr, m, st) VALUES (2, false, [4, NULL, -6], {'a': 1, 'b': NULL}, '[1, "x"]')`)
	_, rows = mustRows(t, s, "SELECT arr, m, st FROM typed WHERE id = 2")
	if !reflect.DeepEqual(rows[0][0], []any{int32(4), nil, int32(-6)}) ||
		!reflect.DeepEqual(rows[0][1], storage.MapValue{Keys: []any{"a", "b"}, Values: []any{int32(1), nil}}) ||
		!reflect.DeepEqual(rows[0][2], []any{int32(1), "x"}) {
		t.Fatalf("collection literals stored as %#v", rows[0])
	}
	// Predicates on LARGEINT and BOOLEAN still evaluate in GMS.
	if _, rows := mustRows(t, s, "SELECT id FROM typed WHERE b = true AND id > 5"); len(rows) != 1 || fmt.Sprint(rows[0][0]) != "170141183460469231731687303715884105727" {
		t.Fatalf("predicate rows = %v", rows)
	}
}
