package input

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// snapRows is how many rows the snapshot tests' table d.s holds, spread
// over its four tablets.
const snapRows = 20

// snapFixture is a split reader over table d.s (four tablets, two per
// split) on the in-process simulator, with the real conn.
type snapFixture struct {
	srv  *dorissim.Server
	conf *Config
	c    *conn
	sr   *splitReader
	capt *metricsCapture
	log  *logSink
	t    *tableInfo
	// byTablet is the body of every row of each tablet, as Doris reads it.
	byTablet map[int64][]string
}

func newSnapFixture(t *testing.T, tune func(*Config)) *snapFixture {
	t.Helper()
	ctx := testCtx(t)
	values := make([]string, snapRows)
	for i := range values {
		values[i] = fmt.Sprintf("(%d)", i+1)
	}
	srv := startSim(t, dorissim.Config{FlightBatchRows: 2}, "CREATE DATABASE d",
		"CREATE TABLE d.s (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 4 "+
			`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`,
		"INSERT INTO d.s VALUES "+strings.Join(values, ", "))
	f := &snapFixture{srv: srv, byTablet: map[int64][]string{}}
	log, sink := captureLogger(t)
	f.log = sink
	f.conf = &Config{FENodes: []string{srv.HTTPAddr()}, Username: simUser, Password: simPassword, Retries: 2,
		ConnectTimeout: 2 * time.Second, ReadTimeout: 5 * time.Second, QueryTimeout: 10 * time.Second,
		ScanMode: "snapshot", RequestTabletSize: 2, MaxParallelSnapshotSplits: 2, MaxParallelSnapshotTables: 1}
	f.c = openSimConn(t, f.conf, tune, log)
	var m *metrics
	m, f.capt = capturedMetrics(t)
	f.sr = &splitReader{conf: f.conf, c: f.c, m: m, log: log, maxRows: 3}
	f.t = &tableInfo{name: newTableName("d", "s"), c: f.c}
	qp, err := doris.PlanQuery(ctx, f.c.rest, "d", "s", doris.SnapshotSQL("d", "s", nil, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range qp.TabletIDs() {
		rows, err := srv.Query(ctx, doris.SnapshotSQL("d", "s", nil, []int64{id}, ""))
		if err != nil {
			t.Fatal(err)
		}
		f.byTablet[id] = []string{}
		for _, r := range rows {
			f.byTablet[id] = append(f.byTablet[id], fmt.Sprintf(`{"id":%v}`, r[0]))
		}
	}
	if len(f.byTablet) != 4 {
		t.Fatalf("d.s has tablets %v, want four", f.byTablet)
	}
	return f
}

// tablets is every tablet id of d.s, ascending.
func (f *snapFixture) tablets() []int64 {
	ids := make([]int64, 0, len(f.byTablet))
	for id := range f.byTablet {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// rowsOf is the bodies of the rows of tablets, sorted.
func (f *snapFixture) rowsOf(tablets ...int64) []string {
	var out []string
	for _, id := range tablets {
		out = append(out, f.byTablet[id]...)
	}
	slices.Sort(out)
	return out
}

// readAll runs the split workers over todo and collects their chunks.
func (f *snapFixture) readAll(t *testing.T, todo []splitQuery) ([]snapChunk, error) {
	t.Helper()
	chunks, wait := f.sr.start(testCtx(t), f.t, todo, snapshotPlan{mode: readCurrent})
	var got []snapChunk
	for ch := range chunks {
		got = append(got, ch)
	}
	return got, wait()
}

func chunkBodies(t *testing.T, chunks []snapChunk) []string {
	t.Helper()
	var out []string
	for _, ch := range chunks {
		for _, m := range ch.msgs {
			b, err := m.AsBytes()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	slices.Sort(out)
	return out
}

// finishedTablets is every tablet the chunks report done, in order.
func finishedTablets(chunks []snapChunk) []int64 {
	var out []int64
	for _, ch := range chunks {
		out = append(out, ch.tablets...)
	}
	return out
}

// The plan cuts the tablets into splits of request_tablet_size and leaves
// out the tablets already done; a split partly done keeps the rest.
func TestSplitReaderPendingLeavesOutDoneTablets(t *testing.T) {
	f := newSnapFixture(t, nil)
	ctx := testCtx(t)
	ids := f.tablets()
	todo, total, err := f.sr.pending(ctx, f.t, nil)
	if err != nil || total != 2 || len(todo) != 2 {
		t.Fatalf("pending: %d of %d splits, %v; want 2 of 2", len(todo), total, err)
	}
	if got := slices.Concat(todo[0].Tablets, todo[1].Tablets); !slices.Equal(got, ids) {
		t.Fatalf("splits cover tablets %v, want each of %v once", got, ids)
	}
	todo, total, err = f.sr.pending(ctx, f.t, []int64{ids[0], ids[1], ids[2]})
	if err != nil || total != 2 || len(todo) != 1 || !slices.Equal(todo[0].Tablets, ids[3:]) {
		t.Fatalf("pending after three tablets: %+v of %d, %v; want one split of tablet %d", todo, total, err, ids[3])
	}
	if todo, total, err = f.sr.pending(ctx, f.t, ids); err != nil || total != 2 || len(todo) != 0 {
		t.Fatalf("pending after every tablet: %+v of %d, %v; want none of 2", todo, total, err)
	}
	if err := f.srv.Exec(ctx, "DROP TABLE d.s"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.sr.pending(ctx, f.t, nil); err == nil || !strings.Contains(err.Error(), "query plan for d.s") {
		t.Fatalf("pending of a dropped table: %v, want an error naming it", err)
	}
}

// Every split is read once, in chunks of at most maxRows; its last chunk,
// and only that, reports its tablets done; rows are counted as read.
func TestSplitReaderReadsEachSplitOnce(t *testing.T) {
	f := newSnapFixture(t, nil)
	todo, _, err := f.sr.pending(testCtx(t), f.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := f.readAll(t, todo)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := chunkBodies(t, chunks), f.rowsOf(f.tablets()...); !slices.Equal(got, want) {
		t.Fatalf("read rows %v, want %v", got, want)
	}
	// A split is done once all its rows were read: count each split's rows
	// by the tablet each row is in.
	splitOf := map[string]int{}
	for i, sp := range todo {
		for _, row := range f.rowsOf(sp.Tablets...) {
			splitOf[row] = i
		}
	}
	seen := make([]int, len(todo))
	for _, ch := range chunks {
		if len(ch.msgs) > f.sr.maxRows {
			t.Errorf("chunk of %d rows, more than %d", len(ch.msgs), f.sr.maxRows)
		}
		for _, body := range chunkBodies(t, []snapChunk{ch}) {
			seen[splitOf[body]]++
		}
		if ch.tablets != nil {
			i := slices.IndexFunc(todo, func(sp splitQuery) bool { return slices.Equal(sp.Tablets, ch.tablets) })
			if want := len(f.rowsOf(ch.tablets...)); i < 0 || seen[i] != want {
				t.Errorf("split %v reported done after %d of its %d rows", ch.tablets, seen[max(i, 0)], want)
			}
		}
	}
	done := finishedTablets(chunks)
	slices.Sort(done)
	if !slices.Equal(done, f.tablets()) {
		t.Fatalf("tablets reported done %v, want each of %v once", done, f.tablets())
	}
	if got := f.capt.counter("doris_binlog_rows_total", "d.s", checkpoint.PhaseSnapshot, "read"); got != snapRows {
		t.Fatalf("rows_total %d, want %d", got, snapRows)
	}
}

// A split whose read fails is read again from its start: no row is lost,
// and its tablets are reported done once.
func TestSplitReaderRetriesASplitFromItsStart(t *testing.T) {
	f := newSnapFixture(t, func(c *Config) { c.MaxParallelSnapshotSplits = 1 })
	todo, _, err := f.sr.pending(testCtx(t), f.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.SetFaults(dorissim.Faults{FailDoGet: 1})
	chunks, err := f.readAll(t, todo)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := chunkBodies(t, chunks), f.rowsOf(f.tablets()...); !slices.Equal(got, want) {
		t.Fatalf("read rows %v, want %v", got, want)
	}
	done := finishedTablets(chunks)
	slices.Sort(done)
	if !slices.Equal(done, f.tablets()) {
		t.Fatalf("tablets reported done %v, want each of %v once", done, f.tablets())
	}
	if n := len(f.log.Lines("WARN", "re-reading it from its start (attempt 2 of 2)")); n != 1 {
		t.Fatalf("%d retry warnings, want 1", n)
	}
}

// A split that fails retries times ends the read with an error naming the
// split, the table and its tablets; it is not fatal, so a restart reads
// it again.
func TestSplitReaderGivesUpAfterItsRetries(t *testing.T) {
	f := newSnapFixture(t, func(c *Config) { c.Retries = 1; c.MaxParallelSnapshotSplits = 1 })
	todo, _, err := f.sr.pending(testCtx(t), f.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.SetFaults(dorissim.Faults{FailDoGet: 1})
	chunks, err := f.readAll(t, todo)
	want := fmt.Sprintf("snapshot split %s of d.s (tablets %v) failed 1 times", todo[0].ID, todo[0].Tablets)
	if err == nil || isFatal(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("read: %v, want a retryable error saying %q", err, want)
	}
	for _, ch := range chunks {
		if ch.tablets != nil && slices.Equal(ch.tablets, todo[0].Tablets) {
			t.Fatalf("the failed split %v was reported done", todo[0].Tablets)
		}
	}
}

// A table of at most snapshot_query_rows rows is read in one query per
// BE: its four one-tablet splits take one query (the simulator has one
// BE), every row arrives once, and the query's last chunk reports all four
// splits done. One row fewer in the limit, and each split is a query.
func TestSplitReaderReadsASmallTableInOneQuery(t *testing.T) {
	for _, tc := range []struct {
		limit   int
		queries int
	}{{snapRows, 1}, {snapRows - 1, 4}, {0, 4}} {
		f := newSnapFixture(t, func(c *Config) { c.RequestTabletSize, c.SnapshotQueryRows = 1, tc.limit })
		todo, total, err := f.sr.pending(testCtx(t), f.t, nil)
		if err != nil || total != 4 || len(todo) != tc.queries {
			t.Fatalf("snapshot_query_rows %d: %d queries of %d splits, %v; want %d of 4", tc.limit, len(todo), total, err, tc.queries)
		}
		chunks, err := f.readAll(t, todo)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := chunkBodies(t, chunks), f.rowsOf(f.tablets()...); !slices.Equal(got, want) {
			t.Fatalf("snapshot_query_rows %d: read rows %v, want %v", tc.limit, got, want)
		}
		splits := 0
		for _, ch := range chunks {
			splits += ch.splits
		}
		done := finishedTablets(chunks)
		slices.Sort(done)
		if splits != 4 || !slices.Equal(done, f.tablets()) {
			t.Fatalf("snapshot_query_rows %d: %d splits and tablets %v reported done, want 4 and %v", tc.limit, splits, done, f.tablets())
		}
		if tc.queries == 1 && chunks[len(chunks)-1].splits != 4 {
			t.Fatalf("the one query's last chunk reports %d splits, want 4", chunks[len(chunks)-1].splits)
		}
	}
}

// A restart forms the same query for what is left: the tablets done are
// left out, and the rest of a small table is still one query.
func TestSplitReaderSmallTableAfterARestart(t *testing.T) {
	f := newSnapFixture(t, func(c *Config) { c.RequestTabletSize, c.SnapshotQueryRows = 1, snapRows })
	ids := f.tablets()
	todo, _, err := f.sr.pending(testCtx(t), f.t, ids[:1])
	if err != nil || len(todo) != 1 || todo[0].splits != 3 || !slices.Equal(todo[0].Tablets, ids[1:]) {
		t.Fatalf("pending after one tablet: %+v, %v; want one query of the other three", todo, err)
	}
}

// A count that fails only costs speed: the table is read one split per
// query, with a warning that says so.
func TestSplitReaderCountFailureReadsSplitByQuery(t *testing.T) {
	f := newSnapFixture(t, func(c *Config) { c.RequestTabletSize, c.SnapshotQueryRows = 1, snapRows })
	f.srv.SetFaults(dorissim.Faults{FailDoGet: 1})
	todo, _, err := f.sr.pending(testCtx(t), f.t, nil)
	if err != nil || len(todo) != 4 {
		t.Fatalf("pending with a failing count: %d queries, %v; want 4", len(todo), err)
	}
	if n := len(f.log.Lines("WARN", "Counting the rows of d.s failed, so it is read one snapshot split per query")); n != 1 {
		t.Fatalf("%d warnings about the count, want 1", n)
	}
}

// request_query_timeout counts the time a split's query keeps the reader
// waiting on Doris, not the time the run takes to accept its chunks: a
// consumer that keeps the reader waiting longer than the timeout, twice,
// while Doris still has most of the split to send, gets every row once,
// with no split read again.
func TestSplitReaderSlowConsumerIsNotAQueryTimeout(t *testing.T) {
	const timeout = 500 * time.Millisecond
	f := newSnapFixture(t, func(c *Config) { c.QueryTimeout = timeout; c.MaxParallelSnapshotSplits = 1 })
	// 4000 more rows, in record batches of two: far more than gRPC lets
	// the server send ahead of a reader that does not read.
	values := make([]string, 4000)
	for i := range values {
		values[i] = fmt.Sprintf("(%d)", snapRows+i+1)
	}
	simExec(t, f.srv, "INSERT INTO d.s VALUES "+strings.Join(values, ", "))
	want := make([]string, 0, snapRows+len(values))
	for i := 1; i <= snapRows+len(values); i++ {
		want = append(want, fmt.Sprintf(`{"id":%d}`, i))
	}
	slices.Sort(want)
	todo, _, err := f.sr.pending(testCtx(t), f.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks, wait := f.sr.start(testCtx(t), f.t, todo, snapshotPlan{mode: readCurrent})
	var got []snapChunk
	for ch := range chunks {
		if len(got) < 2 {
			time.Sleep(timeout + timeout/2)
		}
		got = append(got, ch)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if rows := chunkBodies(t, got); !slices.Equal(rows, want) {
		t.Fatalf("read %d rows, want each of the %d once", len(rows), len(want))
	}
	if n := len(f.log.Lines("WARN", "re-reading it from its start")); n != 0 {
		t.Fatalf("%d splits were read again", n)
	}
}
