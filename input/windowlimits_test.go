package input

// How the window reader answers Doris refusing a query for its resources,
// and request_query_timeout, against the simulator.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// commitEachSecond commits one row of d.a at each of 10:00:01 .. 10:00:0n
// and returns their bodies in order.
func (f *windowFixture) commitEachSecond(t *testing.T, n int) []string {
	t.Helper()
	var want []string
	for i := 1; i <= n; i++ {
		f.commit(t, fmt.Sprintf("10:00:%02d", i), fmt.Sprintf("INSERT INTO d.a VALUES (%d)", i))
		want = append(want, fmt.Sprintf(`{"id":%d}`, i))
	}
	return want
}

// The BE's memory GC cancelling the query ("Process memory not enough",
// which also says "exceed limit" and MEM_LIMIT_EXCEEDED) is pressure that
// passes, not a window too large: the same window is read again, after a
// backoff and a warning naming the cause, and is not halved.
func TestWindowReadRetriesMemoryPressureWhole(t *testing.T) {
	f := newWindowFixture(t, nil, "a")
	log, logs := captureLogger(t)
	f.wr.log = log
	want := f.commitEachSecond(t, 6)
	f.srv.SetFaults(dorissim.Faults{IncrMemoryPressure: 1})
	before := f.srv.Stats().FEIncrQueries
	if _, err := f.read(t, []string{"a"}, f.window(t, "10:00:00", "10:00:08"), nil); err != nil {
		t.Fatal(err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, want...)
	if n := f.srv.Stats().FEIncrQueries - before; n != 2 {
		t.Errorf("%d @incr queries, want 2: the window refused, then the same window again", n)
	}
	if got := f.capt.counter("doris_binlog_window_retries_total", "d.a"); got != 1 {
		t.Errorf("window_retries_total of d.a: %d, want 1", got)
	}
	if n := len(logs.Lines("WARN", "memory pressure on the Doris BE (attempt 1 of 2); reading the same window again")); n != 1 {
		t.Errorf("%d warnings of the same-window retry naming the cause, want 1", n)
	}
	if n := len(logs.Lines("WARN", "two halves")); n != 0 {
		t.Errorf("the window was halved (%d warnings)", n)
	}
}

// Pressure that outlasts request_retries attempts of the same window gets
// the window halved: Doris's GC cancels the largest query first, and a
// half needs less. The rows still come out once each, in order.
func TestWindowReadHalvesAfterRepeatedPressure(t *testing.T) {
	f := newWindowFixture(t, nil, "a")
	want := f.commitEachSecond(t, 6)
	// request_retries is 2: the window is refused twice, then its halves
	// are read.
	f.srv.SetFaults(dorissim.Faults{IncrMemoryPressure: f.conf.Retries})
	before := f.srv.Stats().FEIncrQueries
	if _, err := f.read(t, []string{"a"}, f.window(t, "10:00:00", "10:00:08"), nil); err != nil {
		t.Fatal(err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, want...)
	if n := f.srv.Stats().FEIncrQueries - before; n != 4 {
		t.Errorf("%d @incr queries, want 4: the window twice, then its two halves", n)
	}
}

// slowSink takes its first batches only after hold each, as an output
// that cannot keep up does; the reader waits for it while it holds its
// query open.
type slowSink struct {
	batchSink
	hold time.Duration
	slow int // batches still to hold
}

func (s *slowSink) Emit(batch service.MessageBatch, st *checkpoint.State) error {
	if s.slow > 0 {
		s.slow--
		time.Sleep(s.hold)
	}
	return s.batchSink.Emit(batch, st)
}

// request_query_timeout counts the time spent waiting on Doris, not the
// time the reader waits for a slow output to take rows: an output that
// keeps the reader waiting longer than the timeout, twice, while Doris
// still has most of the window to send, neither times the query out nor
// gets the window read again or split, and every row arrives once, in
// order.
func TestWindowReadSlowOutputIsNotAQueryTimeout(t *testing.T) {
	// Long enough for the reading itself on a loaded machine under -race
	// (2,000 rows in 1,000 record batches): only the output's hold may
	// pass it.
	const timeout = 2 * time.Second
	f := newWindowFixture(t, func(c *Config) { c.QueryTimeout = timeout }, "a")
	// 2000 rows in record batches of two: far more than gRPC lets the
	// server send ahead of a reader that does not read, so the stream is
	// still open while the output holds the reader.
	const n = 2000
	values := make([]string, n)
	want := make([]string, n)
	for i := range values {
		values[i] = fmt.Sprintf("(%d)", i+1)
		want[i] = fmt.Sprintf(`{"id":%d}`, i+1)
	}
	f.commit(t, "10:00:01", "INSERT INTO d.a VALUES "+strings.Join(values, ", "))
	f.wr.em.run = &slowSink{batchSink: f.sink, hold: timeout + timeout/2, slow: 2}
	before := f.srv.Stats().FEIncrQueries
	if _, err := f.read(t, []string{"a"}, f.window(t, "10:00:00", "10:00:08"), nil); err != nil {
		t.Fatal(err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, want...)
	if n := f.srv.Stats().FEIncrQueries - before; n != 1 {
		t.Errorf("%d @incr queries, want 1: a slow output is no reason to read the window again", n)
	}
	if got := f.capt.counter("doris_binlog_window_retries_total", "d.a"); got != 0 {
		t.Errorf("window_retries_total of d.a: %d, want 0", got)
	}
}
