package dorissim

import (
	"testing"
	"time"
)

const (
	acceptPlainDDL = "CREATE TABLE sales.plain (id BIGINT, v VARCHAR(8)) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 " +
		`PROPERTIES ("enable_unique_key_merge_on_write" = "true")`
	acceptNoHistDDL = "CREATE TABLE sales.nohist (id BIGINT, v VARCHAR(8)) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 " +
		`PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW")`
	acceptDupDDL = "CREATE TABLE sales.dup (id BIGINT, v VARCHAR(8)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 " +
		`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`
)

// TestAcceptanceIncrErrorTexts checks the documented @incr error texts and
// codes over both protocols (doris-facts §2.4, §5, §6).
func TestAcceptanceIncrErrorTexts(t *testing.T) {
	s, clock := seedOrders(t)
	mustExecAll(t, s, acceptPlainDDL, acceptNoHistDDL)
	conn := mysqlConn(t, s)
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	cases := []struct{ sql, msg string }{
		{"SELECT * FROM sales.orders@incr('startTs' = '2026-09-14 10:00:00')", "Unsupported parameter in incr query"},
		{"SELECT * FROM sales.orders@incr('incrementType' = 'EVERYTHING')", "Unsupported parameter in incr query"},
		{"SELECT * FROM sales.orders@incr('startTimestamp' = '2026-09-14T10:00')",
			"Invalid TIMESTAMP format in incr clause: 2026-09-14T10:00"},
		{"SELECT * FROM sales.plain@incr('incrementType' = 'DETAIL')", "INCR query requires ROW binlog enabled on base table."},
		{"SELECT * FROM sales.nohist@incr('startTimestamp' = '2026-09-14 10:00:00', 'endTimestamp' = '2026-09-14 10:10:00', " +
			"'incrementType' = 'MIN_DELTA')", "MIN_DELTA INCR query requires base table to enable binlog.need_historical_value=true"},
	}
	for _, tc := range cases {
		wantDorisError(t, conn, fs, tc.sql, tc.msg)
	}
	// An end after the current TSO physical time is refused as not ready.
	future := clock.Now().Add(time.Hour).Format(time.DateTime)
	wantWindowError(t, conn, fs, "SELECT * FROM sales.orders@incr('startTimestamp' = '2026-09-14 10:00:00', "+
		"'endTimestamp' = '"+future+"', 'incrementType' = 'DETAIL')", 5100, "ERR_INCR_WINDOW_NOT_READY", "END_AFTER_CURRENT_TSO")
}

// TestAcceptanceDupTable checks the Duplicate Key record model: every
// written row, duplicates included, is one op 0 record under every
// increment type, and DELETE with predicates is rejected.
func TestAcceptanceDupTable(t *testing.T) {
	clock := newFakeClock(time.Date(2026, 9, 14, 10, 0, 0, 0, time.UTC))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	for _, q := range []string{"CREATE DATABASE sales", acceptDupDDL,
		"INSERT INTO sales.dup VALUES (1, 'a'), (1, 'a'), (2, 'b')", "INSERT INTO sales.dup VALUES (1, 'c')"} {
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	clock.Set(time.Date(2026, 9, 14, 10, 1, 0, 0, time.UTC))
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	want := [][]string{{"1", "a", "0"}, {"1", "a", "0"}, {"1", "c", "0"}, {"2", "b", "0"}}
	for _, typ := range []string{"DETAIL", "APPEND_ONLY", "MIN_DELTA"} {
		q := "SELECT id, v, __DORIS_BINLOG_OP__ FROM sales.dup@incr('startTimestamp' = '2026-09-14 09:00:00', " +
			"'endTimestamp' = '2026-09-14 10:01:00', 'incrementType' = '" + typ + "') ORDER BY id, v"
		if got, err := mysqlText(testCtx(t), conn, q); err != nil || !equalRows(got, want) {
			t.Errorf("mysql %s:\n got %v (err %v)\nwant %v", typ, got, err, want)
		}
		if got, err := fs.text(q); err != nil || !equalRows(got, want) {
			t.Errorf("flight %s:\n got %v (err %v)\nwant %v", typ, got, err, want)
		}
	}
	wantDorisError(t, conn, fs, "DELETE FROM sales.dup WHERE id = 1",
		"DELETE with predicates is not supported when binlog<row> is enabled")
	got, err := mysqlText(testCtx(t), conn, "SELECT COUNT(*) FROM sales.dup WHERE id = 1")
	if err != nil || !equalRows(got, [][]string{{"3"}}) {
		t.Errorf("rejected DELETE changed the table: %v (err %v)", got, err)
	}
}
