package dorissim

import (
	"strings"
	"testing"
)

// TestAcceptanceSequenceColumn checks function_column.sequence_col end to
// end: stream loads and MySQL INSERTs whose sequence value is lower than the
// stored row's change nothing and add no binlog record; a delete keeps its
// sequence value, so a replayed older insert cannot bring the row back.
func TestAcceptanceSequenceColumn(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	for _, q := range []string{"CREATE DATABASE sales", `CREATE TABLE sales.sq (
    order_id BIGINT,
    status   VARCHAR(16),
    tso      BIGINT
)
UNIQUE KEY(order_id)
DISTRIBUTED BY HASH(order_id) BUCKETS 4
PROPERTIES (
    "enable_unique_key_merge_on_write" = "true",
    "binlog.enable" = "true",
    "binlog.format" = "ROW",
    "binlog.need_historical_value" = "true",
    "function_column.sequence_col" = "tso"
)`} {
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	json := map[string]string{"format": "json", "read_json_by_line": "true"}
	streamLoad(t, s, "sq", `{"order_id":1,"status":"paid","tso":20}`+"\n"+`{"order_id":2,"status":"new","tso":20}`+"\n", json)
	clock.Set(at("10:01:00"))
	older := streamLoad(t, s, "sq", `{"order_id":1,"status":"created","tso":10}`+"\n", json)
	wantFields(t, "older load", older, map[string]any{"NumberLoadedRows": 1.0})
	clock.Set(at("10:02:00"))
	if _, err := conn.ExecContext(testCtx(t), "INSERT INTO sales.sq VALUES (1, 'stale', 15)"); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("10:03:00"))
	streamLoad(t, s, "sq", `{"order_id":2,"status":"gone","tso":30,"__DORIS_DELETE_SIGN__":1}`+"\n",
		map[string]string{"format": "json", "read_json_by_line": "true", "hidden_columns": "__DORIS_DELETE_SIGN__"})
	clock.Set(at("10:04:00"))
	streamLoad(t, s, "sq", `{"order_id":2,"status":"replayed","tso":25}`+"\n", json)
	missing := loadInto(t, s, "sales", "sq", strings.NewReader("3\tx\n"), map[string]string{"columns": "order_id,status"})
	wantFields(t, "load without the sequence column", missing, map[string]any{"Status": "Fail"})
	wantContains(t, "load without the sequence column", missing["Message"], "Table sq has sequence column, need to specify the sequence column")
	if got, err := mysqlText(testCtx(t), conn, "SELECT order_id, status, tso FROM sales.sq ORDER BY order_id"); err != nil ||
		!equalRows(got, [][]string{{"1", "paid", "20"}}) {
		t.Errorf("table: %v (%v), want only (1, paid, 20)", got, err)
	}
	clock.Set(at("10:10:00"))
	got, err := mysqlText(testCtx(t), conn, "SELECT order_id, status, __DORIS_BINLOG_OP__ FROM sales.sq@incr('startTimestamp' = '2026-09-14 10:00:00', "+
		"'endTimestamp' = '2026-09-14 10:05:00', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__")
	want := [][]string{{"1", "paid", "0"}, {"2", "new", "0"}, {"2", "new", "1"}}
	if err != nil || !equalRows(got, want) {
		t.Errorf("binlog:\n got %v (%v)\nwant %v", got, err, want)
	}
}
