package dorissim

import (
	"fmt"
	"strings"
	"testing"
)

// streamLoad sends a stream load into sales.<table> (see loadInto) and
// fails the test unless Doris answers Success.
func streamLoad(t *testing.T, s *Server, table, body string, hdr map[string]string) map[string]any {
	t.Helper()
	out := loadInto(t, s, "sales", table, strings.NewReader(body), hdr)
	if out["Status"] != "Success" {
		t.Fatalf("stream load into sales.%s: %v", table, out)
	}
	return out
}

// TestAcceptanceStreamLoadBinlog checks the Row Binlog records of stream
// loads: a delete sign gives a DELETE carrying the pre-delete values, a
// partial-column load on an existing key gives UPDATE_BEFORE (old full row)
// and UPDATE_AFTER (merged row), and a new key gives an APPEND.
func TestAcceptanceStreamLoadBinlog(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	for _, q := range []string{"CREATE DATABASE sales", strings.Replace(acceptOrdersDDL, "sales.orders", "sales.sl", 1),
		"INSERT INTO sales.sl VALUES (1, 'created', 100.00), (2, 'created', 200.00), (3, 'created', 300.00)"} {
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	clock.Set(at("10:05:00"))
	// The deleted row's loaded values differ from the stored ones: the
	// record must carry what was deleted, not what was sent.
	res := streamLoad(t, s, "sl", "1\tignored\t0.00\t1\n6\tnew\t60.00\t0\n", map[string]string{
		"label": "sl-delete-sign", "columns": "order_id,status,amount,__DORIS_DELETE_SIGN__"})
	if fmt.Sprint(res["NumberLoadedRows"]) != "2" {
		t.Errorf("delete-sign load loaded %v rows, want 2", res["NumberLoadedRows"])
	}
	clock.Set(at("10:06:00"))
	streamLoad(t, s, "sl", "2,paid\n7,fresh\n", map[string]string{
		"label": "sl-partial", "column_separator": ",", "columns": "order_id,status", "partial_columns": "true"})
	clock.Set(at("10:20:00"))

	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	detail := "SELECT order_id, status, amount, __DORIS_BINLOG_OP__ AS op FROM sales.sl@incr('startTimestamp' = '2026-09-14 10:01:00', " +
		"'endTimestamp' = '2026-09-14 10:10:00', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, op"
	want := [][]string{
		{"1", "created", "100.00", "1"},
		{"6", "new", "60.00", "0"},
		{"2", "created", "200.00", "2"},
		{"2", "paid", "200.00", "3"},
		{"7", "fresh", "NULL", "0"},
	}
	if got, err := mysqlText(testCtx(t), conn, detail); err != nil || !equalRows(got, want) {
		t.Errorf("mysql DETAIL:\n got %v (err %v)\nwant %v", got, err, want)
	}
	if got, err := fs.text(detail); err != nil || !equalRows(got, want) {
		t.Errorf("flight DETAIL:\n got %v (err %v)\nwant %v", got, err, want)
	}
	table := [][]string{{"2", "paid", "200.00"}, {"3", "created", "300.00"}, {"6", "new", "60.00"}, {"7", "fresh", "NULL"}}
	if got, err := fs.text("SELECT order_id, status, amount FROM sales.sl ORDER BY order_id"); err != nil || !equalRows(got, table) {
		t.Errorf("table after loads:\n got %v (err %v)\nwant %v", got, err, table)
	}
}
