package dorissim

import (
	"testing"
	"time"
)

const acceptTTLDDL = "CREATE TABLE sales.ttl (id BIGINT, v VARCHAR(8)) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 " +
	`PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW", ` +
	`"binlog.need_historical_value" = "true", "binlog.ttl_seconds" = "60")`

func at(hms string) time.Time {
	t, err := time.Parse(time.DateTime, "2026-09-14 "+hms)
	if err != nil {
		panic(err)
	}
	return t
}

// TestAcceptanceTTLPerIncrementType checks expiry (doris-facts §9): with a
// 60 s TTL, DETAIL and APPEND_ONLY with an expired start silently begin at
// the first retained record, MIN_DELTA fails, reads without a start see only
// retained records, and expiry moves with the clock alone.
func TestAcceptanceTTLPerIncrementType(t *testing.T) {
	clock := newFakeClock(at("09:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE sales")
	exec(acceptTTLDDL)
	for _, w := range []struct{ at, sql string }{
		{"10:00:00", "INSERT INTO sales.ttl VALUES (1, 'a')"},
		{"10:00:30", "INSERT INTO sales.ttl VALUES (2, 'b')"},
		{"10:01:30", "INSERT INTO sales.ttl VALUES (3, 'c')"},
	} {
		clock.Set(at(w.at))
		exec(w.sql)
	}
	// Cut-off 10:00:40: the commits of keys 1 and 2 have expired.
	clock.Set(at("10:01:40"))
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	incr := func(params string) string {
		return "SELECT id, v, __DORIS_BINLOG_OP__ FROM sales.ttl@incr(" + params + ") ORDER BY __DORIS_BINLOG_TSO__, id"
	}
	retained := [][]string{{"3", "c", "0"}}
	check := func(q string, want [][]string) {
		t.Helper()
		if got, err := mysqlText(testCtx(t), conn, q); err != nil || !equalRows(got, want) {
			t.Errorf("mysql %s:\n got %v (err %v)\nwant %v", q, got, err, want)
		}
		if got, err := fs.text(q); err != nil || !equalRows(got, want) {
			t.Errorf("flight %s:\n got %v (err %v)\nwant %v", q, got, err, want)
		}
	}
	for _, typ := range []string{"DETAIL", "APPEND_ONLY"} {
		check(incr("'startTimestamp' = '2026-09-14 09:59:00', 'endTimestamp' = '2026-09-14 10:01:40', 'incrementType' = '"+typ+"'"), retained)
	}
	wantDorisError(t, conn, fs, incr("'startTimestamp' = '2026-09-14 09:59:00', 'endTimestamp' = '2026-09-14 10:01:40', "+
		"'incrementType' = 'MIN_DELTA'"), "Row binlog offset has expired according to binlog.ttl_seconds")
	for _, typ := range []string{"DETAIL", "APPEND_ONLY", "MIN_DELTA"} {
		check(incr("'endTimestamp' = '2026-09-14 10:01:40', 'incrementType' = '"+typ+"'"), retained)
	}
	check(incr(""), retained)
	// A start inside the retained range is not an expiry, MIN_DELTA included.
	check(incr("'startTimestamp' = '2026-09-14 10:00:50', 'endTimestamp' = '2026-09-14 10:01:40', 'incrementType' = 'MIN_DELTA'"), retained)

	// With no further writes, moving the clock expires key 3 too; the data stays.
	clock.Set(at("10:02:31"))
	check(incr("'startTimestamp' = '2026-09-14 09:59:00', 'endTimestamp' = '2026-09-14 10:02:30', 'incrementType' = 'DETAIL'"), nil)
	// A window that ended before the cut-off is empty, with or without a start.
	for _, typ := range []string{"DETAIL", "APPEND_ONLY"} {
		check(incr("'startTimestamp' = '2026-09-14 09:59:00', 'endTimestamp' = '2026-09-14 10:00:10', 'incrementType' = '"+typ+"'"), nil)
		check(incr("'endTimestamp' = '2026-09-14 10:00:10', 'incrementType' = '"+typ+"'"), nil)
	}
	check("SELECT id, v FROM sales.ttl ORDER BY id", [][]string{{"1", "a"}, {"2", "b"}, {"3", "c"}})
}

// TestAcceptanceVisibleWaitOpenTransaction checks the visible wait against a
// real open MySQL transaction: a window ending after the transaction began
// fails with 5101 once VisibleWaitTimeout passes, a window ending before it
// does not wait, and after COMMIT the same window succeeds without the
// transaction's row, which lands in the window holding its commit TSO.
func TestAcceptanceVisibleWaitOpenTransaction(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now, VisibleWaitTimeout: 500 * time.Millisecond})
	conn := mysqlConn(t, s)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE sales")
	exec(acceptTTLDDL)
	exec("INSERT INTO sales.ttl VALUES (1, 'a')")

	writer := mysqlConn(t, s)
	clock.Set(at("10:00:05"))
	for _, q := range []string{"BEGIN", "INSERT INTO sales.ttl VALUES (2, 'open')"} {
		if _, err := writer.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("writer %s: %v", q, err)
		}
	}
	clock.Set(at("10:00:20"))
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	window := func(start, end string) string {
		return "SELECT id, v, __DORIS_BINLOG_OP__ FROM sales.ttl@incr('startTimestamp' = '2026-09-14 " + start +
			"', 'endTimestamp' = '2026-09-14 " + end + "', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, id"
	}
	blocked := window("09:00:00", "10:00:10")
	wantWindowError(t, conn, fs, blocked, 5101, "ERR_INCR_VISIBLE_WAIT_TIMEOUT", "VISIBLE_WAIT_TIMEOUT")

	check := func(q string, want [][]string) {
		t.Helper()
		if got, err := mysqlText(testCtx(t), conn, q); err != nil || !equalRows(got, want) {
			t.Errorf("mysql %s:\n got %v (err %v)\nwant %v", q, got, err, want)
		}
		if got, err := fs.text(q); err != nil || !equalRows(got, want) {
			t.Errorf("flight %s:\n got %v (err %v)\nwant %v", q, got, err, want)
		}
	}
	check(window("09:00:00", "10:00:05"), [][]string{{"1", "a", "0"}})

	if _, err := writer.ExecContext(testCtx(t), "COMMIT"); err != nil {
		t.Fatalf("writer COMMIT: %v", err)
	}
	check(blocked, [][]string{{"1", "a", "0"}})
	clock.Set(at("10:00:25"))
	check(window("10:00:10", "10:00:21"), [][]string{{"2", "open", "0"}})
}

// TestAcceptanceVisibleWaitEndsAtCommit checks that a window blocked by an
// open transaction does not answer while the transaction is open and
// answers, without it, as soon as it commits.
func TestAcceptanceVisibleWaitEndsAtCommit(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now, VisibleWaitTimeout: 30 * time.Second})
	mustExecAll(t, s, "CREATE DATABASE sales", acceptTTLDDL, "INSERT INTO sales.ttl VALUES (1, 'a')")
	writer := mysqlConn(t, s)
	clock.Set(at("10:00:05"))
	for _, q := range []string{"BEGIN", "INSERT INTO sales.ttl VALUES (2, 'open')"} {
		if _, err := writer.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("writer %s: %v", q, err)
		}
	}
	clock.Set(at("10:00:20"))
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	type answer struct {
		rows [][]string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		rows, err := fs.text("SELECT id, v, __DORIS_BINLOG_OP__ FROM sales.ttl@incr('startTimestamp' = '2026-09-14 09:00:00', " +
			"'endTimestamp' = '2026-09-14 10:00:10', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, id")
		done <- answer{rows, err}
	}()
	hold := time.NewTimer(300 * time.Millisecond)
	defer hold.Stop()
	select {
	case a := <-done:
		t.Fatalf("window answered while a transaction that began before its end was open: %v (err %v)", a.rows, a.err)
	case <-hold.C:
	}
	if _, err := writer.ExecContext(testCtx(t), "COMMIT"); err != nil {
		t.Fatalf("writer COMMIT: %v", err)
	}
	select {
	case a := <-done:
		if want := [][]string{{"1", "a", "0"}}; a.err != nil || !equalRows(a.rows, want) {
			t.Fatalf("window after COMMIT: %v (err %v), want %v", a.rows, a.err, want)
		}
	case <-testCtx(t).Done():
		t.Fatal("window still waiting after COMMIT")
	}
}
