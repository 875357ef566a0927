package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const (
	dupDDL = `CREATE TABLE events (id INT, v STRING) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2
		PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`
	noHistDDL = `CREATE TABLE nh (k INT, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`
	plainDDL = `CREATE TABLE plain (k INT, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1`
)

func TestIncrParamErrors(t *testing.T) {
	s, _ := seedOrders(t)
	cases := []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"bogus": "1"}, "Unsupported parameter in incr query"},
		{map[string]string{"starttimestamp": "2026-09-14 10:00:00"}, "Unsupported parameter in incr query"},
		{map[string]string{"incrementType": "FULL"}, "Unsupported parameter in incr query"},
		{map[string]string{"startTimestamp": "2026/09/14 10:00:00"}, "Invalid TIMESTAMP format in incr clause: 2026/09/14 10:00:00"},
		{map[string]string{"endTimestamp": "2026-09-14"}, "Invalid TIMESTAMP format in incr clause: 2026-09-14"},
	}
	for _, c := range cases {
		e := incrErr(t, s, "orders", c.params)
		if e.Message != c.want || e.Code != CodeGeneric {
			t.Errorf("%v: got %d %q, want %q", c.params, e.Code, e.Message, c.want)
		}
	}
	// "0" means no bound; the type is case-insensitive.
	_, rows := incr(t, s, "orders", window("0", "0", "Min_Delta"))
	if len(rows) != 3 {
		t.Fatalf("unbounded MIN_DELTA: %d rows", len(rows))
	}
}

func TestIncrTableErrors(t *testing.T) {
	s := newStoreWith(t, nil, noHistDDL, plainDDL)
	e := incrErr(t, s, "plain", nil)
	if e.Message != "INCR query requires ROW binlog enabled on base table." {
		t.Fatalf("no binlog: %q", e.Message)
	}
	want := "MIN_DELTA INCR query requires base table to enable binlog.need_historical_value=true"
	if e := incrErr(t, s, "nh", window("", "", "MIN_DELTA")); e.Message != want {
		t.Fatalf("explicit MIN_DELTA: %q", e.Message)
	}
	if e := incrErr(t, s, "nh", nil); e.Message != want {
		t.Fatalf("implicit MIN_DELTA: %q", e.Message)
	}
	if e := incrErr(t, s, "missing", nil); e.Code != CodeUnknownTable {
		t.Fatalf("missing table: %+v", e)
	}
}

func TestNoHistoricalValue(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, noHistDDL)
	insertRows(t, s, "nh", []any{1, "10"})
	insertRows(t, s, "nh", []any{1, "11"})
	deleteRow(t, s, "nh", []any{1, "ignored"})
	clock.Set(at("2026-09-14 10:01:00"))
	cols, rows := incr(t, s, "nh", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "DETAIL"))
	// The update is a single op-0 row; the delete carries only the key.
	equalStrings(t, "DETAIL", project(cols, rows, "k", "v", ColBinlogOp), []string{"1|10|0", "1|11|0", "1|NULL|1"})
}

func TestDupTables(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, dupDDL,
		`CREATE TABLE nob (id INT, v STRING) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`)
	insertRows(t, s, "events", []any{1, "a"}, []any{1, "a"}, []any{2, "b"})
	insertRows(t, s, "events", []any{1, "c"})
	tx := s.Begin()
	wantErrText(t, tx.Delete("db", "events", []any{1, "a"}), "DELETE with predicates is not supported when binlog<row> is enabled")
	wantErrText(t, tx.Update("db", "events", []any{1, "a"}, []any{1, "z"}), "Only unique table could be updated.")
	tx.Rollback()
	clock.Set(at("2026-09-14 10:01:00"))
	for _, typ := range []string{"", "DETAIL", "MIN_DELTA", "APPEND_ONLY"} {
		cols, rows := incr(t, s, "events", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", typ))
		equalStrings(t, "DUP "+typ, sorted(project(cols, rows, "id", "v", ColBinlogOp)), []string{"1|a|0", "1|a|0", "1|c|0", "2|b|0"})
	}
	it, _ := s.Scan("db", "events", nil)
	if n := len(drain(t, it)); n != 4 {
		t.Fatalf("DUP keeps duplicates: %d rows", n)
	}
	// Without binlog a DUP delete removes the matching rows.
	insertRows(t, s, "nob", []any{1, "a"}, []any{1, "a"}, []any{1, "b"})
	deleteRow(t, s, "nob", []any{1, "a"})
	it, _ = s.Scan("db", "nob", nil)
	if rows := drain(t, it); len(rows) != 1 || rows[0][1] != "b" {
		t.Fatalf("DUP delete without binlog: %v", rows)
	}
}

func TestWindowEdges(t *testing.T) {
	s, clock := seedOrders(t)
	for _, w := range []map[string]string{
		window("2026-09-14 10:10:00", "2026-09-14 10:03:00", "DETAIL"), // reversed
		window("2026-09-14 10:30:00", "", "DETAIL"),                    // start in the future
		window("2026-09-14 10:05:01", "2026-09-14 10:10:00", "MIN_DELTA"),
		window("2026-09-14 10:00:00", "2026-09-14 10:00:00", "DETAIL"),
	} {
		if _, rows := incr(t, s, "orders", w); len(rows) != 0 {
			t.Fatalf("%v: expected empty, got %d rows", w, len(rows))
		}
	}
	// end == now is accepted; [start, end) excludes commits at end.
	_, rows := incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:05:00", "DETAIL"))
	if len(rows) != 3 {
		t.Fatalf("batch 1 only: %d rows", len(rows))
	}
	clock.Set(at("2026-09-14 10:05:00"))
	if _, rows := incr(t, s, "orders", window("2026-09-14 10:05:00", "2026-09-14 10:05:00", "DETAIL")); len(rows) != 0 {
		t.Fatal("empty window at now")
	}
	e := incrErr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:05:01", "DETAIL"))
	cur := s.CurrentTSO()
	committed := s.CommittedTSO()
	want := fmt.Sprintf("ERR_INCR_WINDOW_NOT_READY: reason=END_AFTER_CURRENT_TSO, requestedEndTimestampMs=%d, currentTSO=%d, currentTSOPhysicalTimeMs=%d, committedTSO=%d, committedTSOPhysicalTimeMs=%d, retryAfterMs=1000, timeoutMs=5000",
		at("2026-09-14 10:05:01").UnixMilli(), cur.Value, cur.PhysicalMs, committed.Value, committed.PhysicalMs)
	if e.Code != 5100 || e.Name != "ERR_INCR_WINDOW_NOT_READY" || e.Message != want {
		t.Fatalf("5100: %+v\nwant %s", e, want)
	}
}

func TestTTLExpiry(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	if err := s.SetProperties("db", "orders", map[string]string{"binlog.ttl_seconds": "60"}); err != nil {
		t.Fatal(err)
	}
	insertRows(t, s, "orders", order(1, "old", "1"), order(2, "old", "2"))
	clock.Set(at("2026-09-14 10:00:30"))
	insertRows(t, s, "orders", order(1, "mid", "1"))
	clock.Set(at("2026-09-14 10:01:10")) // cutoff 10:00:10: batch 1 expired, batch 2 retained
	for _, typ := range []string{"DETAIL", "APPEND_ONLY"} {
		_, rows := incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", typ))
		cutoff := at("2026-09-14 10:00:10").UnixMilli()
		for _, r := range rows {
			if TSOFromValue(r[3].(int64)).PhysicalMs <= cutoff {
				t.Fatalf("%s returned an expired record: %v", typ, r)
			}
		}
		if typ == "DETAIL" && len(rows) != 2 {
			t.Fatalf("DETAIL should keep the retained update (UB+UA): %d rows", len(rows))
		}
		if typ == "APPEND_ONLY" && len(rows) != 0 {
			t.Fatalf("APPEND_ONLY: the only inserts expired: %v", rows)
		}
	}
	e := incrErr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "MIN_DELTA"))
	if e.Message != "Row binlog offset has expired according to binlog.ttl_seconds" {
		t.Fatalf("MIN_DELTA expired start: %q", e.Message)
	}
	// The boundary: start exactly at the cutoff is expired, one second later is not.
	incrErr(t, s, "orders", window("2026-09-14 10:00:10", "2026-09-14 10:01:00", "MIN_DELTA"))
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:00:11", "2026-09-14 10:01:00", "MIN_DELTA"))
	equalStrings(t, "MIN_DELTA retained", project(cols, rows, "order_id", "status", ColBinlogOp), []string{"1|old|2", "1|mid|3"})
	// Without a start, only retained records are read: key 1 appears with
	// its latest value, key 2 (only expired records) does not.
	cols, rows = incr(t, s, "orders", nil)
	equalStrings(t, "no start", project(cols, rows, "order_id", "status", ColBinlogOp), []string{"1|mid|0"})
	// The table data itself does not expire.
	it, _ := s.Scan("db", "orders", nil)
	if n := len(drain(t, it)); n != 2 {
		t.Fatalf("rows expired with the binlog: %d", n)
	}
}

func openWriter(t *testing.T, s *Store) *Txn {
	t.Helper()
	tx := s.Begin()
	if err := tx.Insert("db", "orders", order(42, "pending", "1")); err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestVisibleWaitTimeout(t *testing.T) {
	s := New(Options{VisibleWaitTimeout: 50 * time.Millisecond})
	if err := s.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, ordersDDL)
	tx := openWriter(t, s)
	defer tx.Rollback()
	end := time.Now().Add(time.Second).UTC().Format("2006-01-02 15:04:05")
	time.Sleep(time.Until(at(end)) + 10*time.Millisecond) // the end must not be after the current TSO
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err := s.Incr(ctx, "db", "orders", IncrParams{Params: window("", end, "DETAIL")})
	var e *Error
	if !errors.As(err, &e) || e.Code != 5101 || e.Name != "ERR_INCR_VISIBLE_WAIT_TIMEOUT" ||
		!strings.HasPrefix(e.Message, "ERR_INCR_VISIBLE_WAIT_TIMEOUT: reason=VISIBLE_WAIT_TIMEOUT, requestedEndTimestampMs=") ||
		!strings.HasSuffix(e.Message, ", retryAfterMs=0, timeoutMs=50") {
		t.Fatalf("want 5101, got %v", err)
	}
	// A window ending before the open txn began does not wait.
	past := time.UnixMilli(tx.startMs).UTC().Add(-time.Second).Format("2006-01-02 15:04:05")
	if _, _, err := s.Incr(ctx, "db", "orders", IncrParams{Params: window("", past, "DETAIL")}); err != nil {
		t.Fatalf("window before the txn: %v", err)
	}
	// A cancelled context ends the wait.
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	s.opts.VisibleWaitTimeout = time.Minute
	if _, _, err := s.Incr(cctx, "db", "orders", IncrParams{Params: window("", "", "DETAIL")}); err == nil {
		t.Fatal("cancelled wait should fail")
	}
}

func TestVisibleWaitSucceeds(t *testing.T) {
	s := New(Options{VisibleWaitTimeout: 10 * time.Second})
	if err := s.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, ordersDDL)
	tx := openWriter(t, s)
	go func() {
		time.Sleep(30 * time.Millisecond)
		_, _ = tx.Commit()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cols, it, err := s.Incr(ctx, "db", "orders", IncrParams{Params: window("", "", "DETAIL")})
	if err != nil {
		t.Fatal(err)
	}
	rows := drain(t, it)
	// The read waited for the commit, so it sees the row.
	equalStrings(t, "after wait", project(cols, rows, "order_id", "status"), []string{"42|pending"})
}

func TestForceVisibleWaitTimeouts(t *testing.T) {
	s, _ := seedOrders(t)
	s.ForceVisibleWaitTimeouts(2)
	for range 2 {
		if e := incrErr(t, s, "orders", window("2026-09-14 10:03:00", "2026-09-14 10:10:00", "DETAIL")); e.Code != 5101 {
			t.Fatalf("forced: %+v", e)
		}
	}
	// Validation errors come first and do not consume a forced fault.
	s.ForceVisibleWaitTimeouts(1)
	incrErr(t, s, "orders", map[string]string{"bogus": "x"})
	if e := incrErr(t, s, "orders", nil); e.Code != 5101 {
		t.Fatalf("forced after validation error: %+v", e)
	}
	if _, rows := incr(t, s, "orders", window("2026-09-14 10:03:00", "2026-09-14 10:10:00", "DETAIL")); len(rows) != 6 {
		t.Fatalf("after faults: %d rows", len(rows))
	}
}

// TestLargeBacklogStreams reads a large DETAIL window lazily.
func TestLargeBacklogStreams(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	const n = 50000
	tx := s.Begin()
	for i := range n {
		if err := tx.Insert("db", "orders", order(int64(i%1000), "s", "1")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("2026-09-14 10:01:00"))
	_, rows := incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "DETAIL"))
	if len(rows) != 1000+2*(n-1000) {
		t.Fatalf("DETAIL rows: %d", len(rows))
	}
	_, rows = incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "MIN_DELTA"))
	if len(rows) != 1000 {
		t.Fatalf("MIN_DELTA rows: %d", len(rows))
	}
}
