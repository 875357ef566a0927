package crash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

var columns = []string{"id", "name", "qty", "amount"}

// figures are one table's results, or their sum over tables.
type figures struct {
	events    int // lines delivered, over all runs
	lost      int // binlog positions Doris has in the delivered range but no run delivered
	phantom   int // delivered binlog positions Doris does not have
	dupBinlog int // binlog events whose position an earlier line already carried
	dupSnap   int // snapshot rows whose key an earlier snapshot line already carried
	bound     int // the most duplicates the delivery guarantees allow
}

func (f figures) duplicates() int { return f.dupBinlog + f.dupSnap }

func (f *figures) add(o figures) {
	f.events += o.events
	f.lost += o.lost
	f.phantom += o.phantom
	f.dupBinlog += o.dupBinlog
	f.dupSnap += o.dupSnap
	f.bound += o.bound
}

// killInfo is what the test knew when it killed a run.
type killInfo struct {
	run int // the killed run's number
	// snapshotting are the tables whose stored entry was still in the
	// snapshot phase (or not stored yet): the next run re-reads the
	// splits of them that were in progress.
	snapshotting []string
}

// tableCheck holds what verifying one table needs.
type tableCheck struct {
	s        *suite
	table    string
	events   []harness.Event // every run's lines for the table, in run order
	starts   []string        // binlog starts seen in snapshot-phase checkpoints
	logStart string          // the binlog start a run logged when the table joined late
	inserted int             // keys the workload ever inserted (it never reuses a key)
}

// tableCheck prepares the verification of tbl over evs.
func (s *suite) tableCheck(tbl string, evs []harness.Event) *tableCheck {
	c := &tableCheck{s: s, table: tbl, events: evs, starts: s.obs.binlogStarts(tbl), inserted: int(s.loads[tbl].NextID() - 1)}
	if tbl == s.late {
		c.logStart = s.loggedJoinStart(tbl)
	}
	return c
}

// binlogStart is where the table's binlog is followed from: its stored
// start, else the one logged when it joined, else its first window.
func (c *tableCheck) binlogStart() string {
	if len(c.starts) > 0 {
		return c.starts[0]
	}
	if c.logStart != "" {
		return c.logStart
	}
	start := ""
	for _, ev := range c.events {
		if ev.Phase == "binlog" && (start == "" || ev.WindowStart < start) {
			start = ev.WindowStart
		}
	}
	return start
}

// replayDiff rebuilds the table from the events (binlog sorted by position,
// repeats dropped) and compares it with want.
func replayDiff(t *testing.T, srv *dorissim.Server, db, table string, evs []harness.Event) string {
	t.Helper()
	return replayDiffFrom(harness.TableState(t, srv, db, table, "id", columns...), evs)
}

func replayDiffFrom(want map[string]harness.Row, evs []harness.Event) string {
	got, err := harness.Replay(harness.SortDedupe(evs), "id")
	if err != nil {
		return "replay: " + err.Error()
	}
	return harness.Diff(want, got)
}

// verify computes the table's figures and fails the test on a wrong table,
// a lost or phantom position, or a stream start that moved. A live table
// must replay to the simulator's table; a dropped one to its content at
// the drop. Duplicates are bounded for the whole input (see suite.bound).
func (c *tableCheck) verify(t *testing.T) figures {
	t.Helper()
	f := figures{events: len(c.events)}
	name := qualified(c.table)
	if len(c.starts) > 1 {
		t.Errorf("%s: the stored binlog start changed across restarts: %v", name, c.starts)
	}
	if c.logStart != "" && len(c.starts) > 0 && c.logStart != c.starts[0] {
		t.Errorf("%s: the run logged its binlog start %s, the checkpoint held %s", name, c.logStart, c.starts[0])
	}
	var d string
	if g := c.s.gone[c.table]; g != nil {
		d = replayDiffFrom(g.state, c.events)
	} else {
		d = replayDiff(t, c.s.srv, db, c.table, c.events)
	}
	if d != "" {
		t.Errorf("%s: replaying the output does not give the table:\n%s", name, d)
	}
	f.dupBinlog = harness.DuplicatePositions(c.events)
	f.dupSnap = snapshotDuplicates(c.events)
	f.lost, f.phantom = c.positions(t)
	if f.lost > 0 || f.phantom > 0 {
		t.Errorf("%s: %d binlog positions lost, %d delivered that Doris does not have", name, f.lost, f.phantom)
	}
	return f
}

// snapshotDuplicates counts snapshot rows whose key was delivered in the
// snapshot phase before.
func snapshotDuplicates(evs []harness.Event) int {
	seen := map[string]bool{}
	n := 0
	for _, ev := range evs {
		if ev.Phase == "binlog" {
			continue
		}
		k := fmt.Sprint(ev.Row["id"])
		if seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}

// positions compares the delivered binlog positions with what Doris itself
// holds from the table's binlog start to the last window end the output
// reached (for a dropped table: the range taken before the drop).
func (c *tableCheck) positions(t *testing.T) (lost, phantom int) {
	t.Helper()
	start, end := c.binlogStart(), c.s.lastWindowEnd()
	for _, ev := range c.events {
		if ev.Phase == "binlog" && ev.WindowStart < start {
			t.Errorf("%s: window %s..%s starts before the binlog start %s", qualified(c.table), ev.WindowStart, ev.WindowEnd, start)
		}
	}
	if start == "" || end == "" {
		t.Errorf("%s: no binlog event was delivered", qualified(c.table))
		return 0, 0
	}
	var want map[[3]int64]bool
	if g := c.s.gone[c.table]; g != nil {
		start, end, want = g.start, g.end, g.positions
	} else {
		want = expectedPositions(t, c.s.srv, db, c.table, start, end)
	}
	// Every table here was snapshotted as of the last TSO of its binlog's
	// first second, and its binlog leaves out what the snapshot holds.
	if b, err := checkpoint.ParseBound(start); err == nil && !b.IsZero() {
		asOf := doris.LastTSOBefore(b.Ms() + 1000)
		for p := range want {
			if p[0] <= asOf {
				delete(want, p)
			}
		}
	}
	got := map[[3]int64]bool{}
	for _, ev := range c.events {
		if ev.Phase == "binlog" {
			got[ev.Pos()] = true
		}
	}
	for p := range want {
		if !got[p] {
			lost++
			if lost <= 5 {
				t.Logf("%s: lost binlog position %v", qualified(c.table), p)
			}
		}
	}
	for p := range got {
		if !want[p] {
			phantom++
			if phantom <= 5 {
				t.Logf("%s: delivered position %v is not in Doris's binlog [%s, %s)", qualified(c.table), p, start, end)
			}
		}
	}
	return lost, phantom
}

// expectedPositions asks the simulator for every (TSO, LSN, OP) in
// [start, end).
func expectedPositions(t *testing.T, srv *dorissim.Server, db, table, start, end string) map[[3]int64]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q := fmt.Sprintf("SELECT `__DORIS_BINLOG_TSO__`, `__DORIS_BINLOG_LSN__`, `__DORIS_BINLOG_OP__` FROM `%s`.`%s`@incr("+
		"'startTimestamp' = '%s', 'endTimestamp' = '%s', 'incrementType' = 'DETAIL')", db, table, start, end)
	rows, err := srv.Query(ctx, q)
	if err != nil {
		t.Fatalf("reading the binlog of %s.%s from %s to %s: %v", db, table, start, end, err)
	}
	out := make(map[[3]int64]bool, len(rows))
	for _, r := range rows {
		var p [3]int64
		for i := range p {
			n, ok := asInt64(r[i])
			if !ok {
				t.Fatalf("binlog column %d of %s.%s is %T", i, db, table, r[i])
			}
			p[i] = n
		}
		out[p] = true
	}
	return out
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	default:
		return 0, false
	}
}

// maxTabletRowsEver bounds the rows any tablet of the table ever held: its
// live rows now plus every key deleted so far.
func (c *tableCheck) maxTabletRowsEver(t *testing.T) int {
	t.Helper()
	if g := c.s.gone[c.table]; g != nil {
		return g.tabletRows
	}
	store := c.s.srv.Store()
	info, err := store.Table(db, c.table)
	if err != nil {
		t.Fatalf("tablets of %s: %v", qualified(c.table), err)
	}
	live, most := 0, 0
	for _, id := range info.TabletIDs {
		n := countRows(t, c, id)
		live += n
		most = max(most, n)
	}
	return most + max(c.inserted-live, 0)
}

func countRows(t *testing.T, c *tableCheck, tablet int64) int {
	t.Helper()
	it, err := c.s.srv.Store().Scan(db, c.table, []int64{tablet})
	if err != nil {
		t.Fatalf("scanning tablet %d of %s: %v", tablet, qualified(c.table), err)
	}
	defer it.Close()
	n := 0
	for {
		_, err := it.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("scanning tablet %d of %s: %v", tablet, qualified(c.table), err)
		}
		n++
	}
}
