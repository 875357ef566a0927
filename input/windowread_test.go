package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// interleaved commits rows to d.a and d.b: two transactions touch both
// tables, so their rows share a TSO.
func (f *windowFixture) interleaved(t *testing.T) {
	f.commit(t, "10:00:01", "INSERT INTO d.b VALUES (101)", "INSERT INTO d.a VALUES (1)")
	f.commit(t, "10:00:02", "INSERT INTO d.a VALUES (2), (3)")
	f.commit(t, "10:00:03", "INSERT INTO d.b VALUES (102)")
	f.commit(t, "10:00:04", "INSERT INTO d.b VALUES (103), (104)", "INSERT INTO d.a VALUES (4)")
}

var interleavedOrder = []string{`{"id":1}`, `{"id":101}`, `{"id":2}`, `{"id":3}`, `{"id":102}`, `{"id":4}`, `{"id":103}`, `{"id":104}`}

// A window of several tables comes out in (TSO, table, LSN, OP) order: a
// transaction's rows of d.a before its rows of d.b, whatever the order of
// its statements; each batch placed at its last row; rows counted per
// table and operation.
func TestWindowReadMergesTablesInCommitOrder(t *testing.T) {
	f := newWindowFixture(t, nil, "a", "b")
	f.interleaved(t)
	f.commit(t, "10:00:05", "INSERT INTO d.a VALUES (5)") // after the window
	dropped, err := f.read(t, []string{"a", "b"}, f.window(t, "10:00:00", "10:00:05"), nil)
	if err != nil || len(dropped) != 0 {
		t.Fatalf("read: dropped %v, %v", dropped, err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, interleavedOrder...)
	for table, n := range map[string]int64{"d.a": 4, "d.b": 4} {
		if got := f.capt.counter("doris_binlog_rows_total", table, checkpoint.PhaseBinlog, "insert"); got != n {
			t.Errorf("rows_total of %s: %d, want %d", table, got, n)
		}
	}
}

// Rows up to skip (delivered before a restart) are not emitted again; a
// row of another table in skip's transaction comes after it and is.
func TestWindowReadSkipsRowsDeliveredBefore(t *testing.T) {
	f := newWindowFixture(t, nil, "a", "b")
	f.interleaved(t)
	w := f.window(t, "10:00:00", "10:00:05")
	if _, err := f.read(t, []string{"a", "b"}, w, nil); err != nil {
		t.Fatal(err)
	}
	all := f.emitted(t)
	for _, cut := range []int{0, 3, len(all) - 1} {
		f.sink.batches, f.sink.states = nil, nil
		skip := all[cut].pos
		if _, err := f.read(t, []string{"a", "b"}, w, &skip); err != nil {
			t.Fatal(err)
		}
		rows := f.emitted(t)
		checkOrder(t, rows)
		wantBodies(t, rows, interleavedOrder[cut+1:]...)
	}
}

// A failure of one table's query (a stream cut after some of its rows
// were handed on) retries that table alone, from after the last row handed
// on: nothing is emitted twice, nothing is skipped.
func TestWindowReadRetriesAFailingTable(t *testing.T) {
	f := newWindowFixture(t, nil, "a", "b")
	var values []string
	var want []string
	for i := 1; i <= 14; i++ {
		values = append(values, fmt.Sprintf("(%d)", i))
		want = append(want, fmt.Sprintf(`{"id":%d}`, i))
	}
	f.commit(t, "10:00:01", "INSERT INTO d.a VALUES "+strings.Join(values, ", "))
	f.commit(t, "10:00:02", "INSERT INTO d.b VALUES (101)")
	want = append(want, `{"id":101}`)
	// Only d.a's stream reaches 10 rows: five batches of two, of which the
	// first are handed on before the cut whatever the conversion depth.
	f.srv.SetFaults(dorissim.Faults{CutDoGetAfterRows: 10})
	before := f.srv.Stats().FEIncrQueries
	if _, err := f.read(t, []string{"a", "b"}, f.window(t, "10:00:00", "10:00:03"), nil); err != nil {
		t.Fatal(err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, want...)
	if n := f.srv.Stats().FEIncrQueries - before; n != 3 {
		t.Errorf("%d @incr queries, want 3: one per table and d.a's retry", n)
	}
	if got := f.capt.counter("doris_binlog_window_retries_total", "d.a"); got != 1 {
		t.Errorf("window_retries_total of d.a: %d, want 1", got)
	}
	if got := f.capt.counter("doris_binlog_window_retries_total", "d.b"); got != 0 {
		t.Errorf("window_retries_total of d.b: %d, want 0: its query did not fail", got)
	}
}

// A part too large for exec_mem_limit is read as two halves, and a half
// still too large as its own halves, before the second half: the rows come
// out once each and in commit order.
func TestWindowReadSplitsAPieceTooLarge(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.ExecMemLimit = 2 * storage.IncrRowMemBytes }, "a", "b")
	var want []string
	for _, i := range []int{1, 2, 3, 5, 6} {
		at := fmt.Sprintf("10:00:%02d", i)
		f.commit(t, at, fmt.Sprintf("INSERT INTO d.a VALUES (%d)", i))
		want = append(want, fmt.Sprintf(`{"id":%d}`, i))
		if i == 3 {
			f.commit(t, at, "INSERT INTO d.b VALUES (103)")
			want = append(want, `{"id":103}`)
		}
	}
	before := f.srv.Stats().FEIncrQueries
	if _, err := f.read(t, []string{"a", "b"}, f.window(t, "10:00:00", "10:00:08"), nil); err != nil {
		t.Fatal(err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, want...)
	// d.a: [0,8) and [0,4) hold more than two records and fail; [0,2),
	// [2,4) and [4,8) are read.
	if n := f.srv.Stats().FEIncrQueries - before; n != 1+5 {
		t.Errorf("%d @incr queries, want 6: d.b's and five pieces of d.a", n)
	}
}

// A table dropped before its part of the window is read is reported, and
// the other tables' rows are delivered.
func TestWindowReadReportsADroppedTable(t *testing.T) {
	f := newWindowFixture(t, nil, "a", "b")
	f.interleaved(t)
	f.exec(t, "DROP TABLE d.b")
	dropped, err := f.read(t, []string{"a", "b"}, f.window(t, "10:00:00", "10:00:05"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dropped, []string{"d.b"}) {
		t.Fatalf("dropped %v, want [d.b]", dropped)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, `{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`)
}

// A failure no retry can fix (a single second over exec_mem_limit) stops
// the read with a fatal error naming the table and the window part, and
// nothing of that table past the failure is emitted.
func TestWindowReadStopsOnAFatalError(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.ExecMemLimit = storage.IncrRowMemBytes }, "a", "b")
	f.commit(t, "10:00:01", "INSERT INTO d.a VALUES (1), (2)")
	f.commit(t, "10:00:01", "INSERT INTO d.b VALUES (101)")
	_, err := f.read(t, []string{"a", "b"}, f.window(t, "10:00:00", "10:00:02"), nil)
	if !isFatal(err) {
		t.Fatalf("read: %v, want a fatal error", err)
	}
	for _, want := range []string{"d.a", "[2026-12-01 10:00:01, 2026-12-01 10:00:02)", "exec_mem_limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	for _, r := range f.emitted(t) {
		if r.pos.Table == "d.a" {
			t.Errorf("emitted %v of the table that failed", r)
		}
	}
}

// A read that runs out of request_query_timeout is a part too large: it is
// split, and a single second that still times out stops the read naming
// the timeout.
func TestWindowReadTimeoutSplitsThenStops(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.QueryTimeout = 50 * time.Millisecond }, "a")
	f.commit(t, "10:00:01", "INSERT INTO d.a VALUES (1)")
	// Every Flight call takes longer than the query may.
	f.srv.SetFaults(dorissim.Faults{Latency: 80 * time.Millisecond})
	before := f.srv.Stats().FEIncrQueries
	_, err := f.read(t, []string{"a"}, f.window(t, "10:00:00", "10:00:02"), nil)
	f.srv.ClearFaults()
	if !isFatal(err) {
		t.Fatalf("read: %v, want a fatal error", err)
	}
	for _, want := range []string{"d.a", "[2026-12-01 10:00:00, 2026-12-01 10:00:01)", "request_query_timeout 50ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := f.srv.Stats().FEIncrQueries - before; n != 2 {
		t.Errorf("%d @incr queries, want 2: the window, then its first half", n)
	}
}

// uniqueBinlogDDL is a merge-on-write unique key table whose row binlog
// keeps before-images: an UPDATE gives an update_before and an
// update_after row.
const uniqueBinlogDDL = " (id BIGINT, v VARCHAR(8)) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES (" +
	`"enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW", ` +
	`"binlog.need_historical_value" = "true")`

// With binlog_merge_updates, an update's two rows come out as one update
// message, counted as an update; a half whose other half a binlog_filter
// dropped comes out alone and is counted as unpaired.
func TestWindowReadMergesUpdates(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.MergeUpdates = true })
	f.exec(t, "CREATE TABLE d.u"+uniqueBinlogDDL)
	f.follow(t, "u")
	f.commit(t, "10:00:01", "INSERT INTO d.u VALUES (1, 'a'), (2, 'a')")
	f.commit(t, "10:00:02", "UPDATE d.u SET v = 'b' WHERE id = 1")
	w := f.window(t, "10:00:00", "10:00:03")
	if _, err := f.read(t, []string{"u"}, w, nil); err != nil {
		t.Fatal(err)
	}
	ops := func() []string {
		var out []string
		for _, b := range f.sink.batches {
			for _, m := range b {
				op, _ := m.MetaGet("operation")
				body, _ := m.AsBytes()
				out = append(out, op+" "+string(body))
			}
		}
		f.sink.batches, f.sink.states = nil, nil
		return out
	}
	want := []string{`insert {"id":1,"v":"a"}`, `insert {"id":2,"v":"a"}`, `update {"id":1,"v":"b"}`}
	if got := ops(); !slices.Equal(got, want) {
		t.Fatalf("emitted %q, want %q", got, want)
	}
	if got := f.capt.counter("doris_binlog_rows_total", "d.u", checkpoint.PhaseBinlog, "update"); got != 1 {
		t.Errorf("rows_total of updates: %d, want 1", got)
	}

	f.conf.BinlogFilter = "v = 'b'" // keeps the update_after alone
	if _, err := f.read(t, []string{"u"}, w, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := ops(), []string{`update_after {"id":1,"v":"b"}`}; !slices.Equal(got, want) {
		t.Fatalf("with the filter: emitted %q, want %q", got, want)
	}
	if got := f.capt.counter("doris_binlog_unpaired_updates_total", "d.u"); got != 1 {
		t.Errorf("unpaired_updates_total %d, want 1", got)
	}
}

// A read whose run is cancelled ends with the cancellation, emits nothing
// and leaves no source running (read waits for them).
func TestWindowReadEndsWithItsRun(t *testing.T) {
	f := newWindowFixture(t, nil, "a", "b")
	f.interleaved(t)
	ctx, cancel := context.WithCancelCause(testCtx(t))
	stopped := errors.New("the pipeline is stopping")
	cancel(stopped)
	if _, err := f.readCtx(ctx, []string{"a", "b"}, f.window(t, "10:00:00", "10:00:05"), nil); !errors.Is(err, stopped) {
		t.Fatalf("read: %v, want the run's cause", err)
	}
	if rows := f.emitted(t); len(rows) != 0 {
		t.Fatalf("a cancelled read emitted %v", rows)
	}
}
