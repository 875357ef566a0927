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
)

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
	const timeout = 500 * time.Millisecond
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
