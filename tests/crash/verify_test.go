package crash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

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

// killInfo is what the test knew about one table when it killed a run.
type killInfo struct {
	// inSnapshot: the table's stored checkpoint was not yet in the binlog
	// phase, so the next run re-reads the splits that were in progress.
	inSnapshot bool
}

// tableCheck holds what verifying one table needs.
type tableCheck struct {
	srv         *dorissim.Server
	db, table   string
	events      []harness.Event // every run's lines for the table, in run order
	streamStart string          // from a snapshot-phase checkpoint; "" if never seen
	kills       []killInfo
	limit       int // checkpoint_limit
	parallel    int // max_parallel_snapshot_splits
	inserted    int // keys the workload ever inserted (it never reuses a key)
}

// replayDiff rebuilds the table from the events (binlog sorted by position,
// repeats dropped) and compares it with the simulator's table.
func replayDiff(t *testing.T, srv *dorissim.Server, db, table string, evs []harness.Event) string {
	t.Helper()
	got, err := harness.Replay(harness.SortDedupe(evs), "id")
	if err != nil {
		return "replay: " + err.Error()
	}
	return harness.Diff(harness.TableState(t, srv, db, table, "id", columns...), got)
}

// verify computes the table's figures and fails the test on a wrong table,
// a lost or phantom position, or duplicates beyond the bound.
//
// Duplicate bound, per kill: the output may have written up to
// checkpoint_limit messages that were not yet acked (the source re-sends
// nothing acked). When the table was still in the snapshot phase, the next
// run also re-reads every split that was in progress: at most
// max_parallel_snapshot_splits splits of request_tablet_size 1, i.e. that
// many tablets. A tablet never holds more rows than the keys ever inserted
// into it, which is at most its live rows at the end plus every deleted key
// (the workload never reuses a key).
func (c *tableCheck) verify(t *testing.T) figures {
	t.Helper()
	f := figures{events: len(c.events)}
	name := c.db + "." + c.table
	if d := replayDiff(t, c.srv, c.db, c.table, c.events); d != "" {
		t.Errorf("%s: replaying the output does not give the table:\n%s", name, d)
	}
	f.dupBinlog = harness.DuplicatePositions(c.events)
	f.dupSnap = snapshotDuplicates(c.events)
	f.lost, f.phantom = c.positions(t)

	tabletRows := c.maxTabletRowsEver(t)
	for _, k := range c.kills {
		f.bound += c.limit
		if k.inSnapshot {
			f.bound += c.parallel * tabletRows
		}
	}
	if f.lost > 0 || f.phantom > 0 {
		t.Errorf("%s: %d binlog positions lost, %d delivered that Doris does not have", name, f.lost, f.phantom)
	}
	if f.duplicates() > f.bound {
		t.Errorf("%s: %d duplicates (%d binlog, %d snapshot) exceed the bound %d over %d kills",
			name, f.duplicates(), f.dupBinlog, f.dupSnap, f.bound, len(c.kills))
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
// holds from the stream start to the last delivered window end.
func (c *tableCheck) positions(t *testing.T) (lost, phantom int) {
	t.Helper()
	start, end := c.streamStart, ""
	for _, ev := range c.events {
		if ev.Phase != "binlog" {
			continue
		}
		if start == "" || (c.streamStart == "" && ev.WindowStart < start) {
			start = ev.WindowStart
		}
		if ev.WindowStart < start {
			t.Errorf("%s.%s: window %s..%s starts before the stream start %s", c.db, c.table, ev.WindowStart, ev.WindowEnd, start)
		}
		end = max(end, ev.WindowEnd)
	}
	if end == "" {
		t.Errorf("%s.%s: no binlog event was delivered", c.db, c.table)
		return 0, 0
	}
	want := expectedPositions(t, c.srv, c.db, c.table, start, end)
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
				t.Logf("%s.%s: lost binlog position %v", c.db, c.table, p)
			}
		}
	}
	for p := range got {
		if !want[p] {
			phantom++
			if phantom <= 5 {
				t.Logf("%s.%s: delivered position %v is not in Doris's binlog [%s, %s)", c.db, c.table, p, start, end)
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
	store := c.srv.Store()
	info, err := store.Table(c.db, c.table)
	if err != nil {
		t.Fatalf("tablets of %s.%s: %v", c.db, c.table, err)
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
	it, err := c.srv.Store().Scan(c.db, c.table, []int64{tablet})
	if err != nil {
		t.Fatalf("scanning tablet %d of %s.%s: %v", tablet, c.db, c.table, err)
	}
	defer it.Close()
	n := 0
	for {
		_, err := it.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("scanning tablet %d of %s.%s: %v", tablet, c.db, c.table, err)
		}
		n++
	}
}
