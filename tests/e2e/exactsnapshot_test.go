package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The initial snapshot meets the binlog exactly (issue 34): every change
// committed while a table's snapshot is read comes once, in the snapshot
// or from the binlog, never in both, and never missing.

// snapshotInput reads db.table in initial mode split by split, one at a
// time, so that the snapshot takes a while and changes land between the
// reads of its splits.
func snapshotInput(srv *dorissim.Server, table string, extra ...string) string {
	return harness.InputYAML(srv, table, append([]string{"scan_mode: initial", "request_tablet_size: 1",
		"max_parallel_snapshot_splits: 1", "snapshot_query_rows: 0", "batch_size: 50"}, extra...)...)
}

// runDuringSnapshot starts the stream, makes changes with change until
// the stream has left its snapshot and read a window after it, then waits
// for the stream to reach the table's state. It returns the events.
func runDuringSnapshot(t *testing.T, srv *dorissim.Server, db, table, input string, logs *harness.LogCapture, change func(context.Context) error) []harness.Event {
	t.Helper()
	col := &harness.Collector{}
	stop := harness.ChangeLoop(t, 2*time.Minute, 2*time.Millisecond, change)
	harness.RunStream(t, harness.StreamConfig{Input: input, Resources: harness.MemoryCache, Logs: logs}, col)
	col.WaitFor(t, time.Minute, "a binlog event after the snapshot", func(evs []harness.Event) bool {
		for _, ev := range evs {
			if ev.Phase == "binlog" {
				return true
			}
		}
		return false
	})
	n := stop()
	t.Logf("%d changes made while the stream started", n)
	want := harness.TableState(t, srv, db, table, "id", cols...)
	var diff string
	col.WaitFor(t, time.Minute, "the table's state", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		if err != nil {
			t.Fatal(err)
		}
		diff = harness.Diff(want, got)
		return diff == ""
	})
	time.Sleep(2500 * time.Millisecond) // two more polls: nothing else may come
	return col.Events()
}

// TestExactSnapshotDuplicateKeyTable inserts rows into a DUPLICATE KEY
// table as fast as it takes them while an initial stream reads its
// snapshot: every row must arrive exactly once.
func TestExactSnapshotDuplicateKeyTable(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "tt", "dup", harness.TableOpts{Duplicate: true, Buckets: 8})
	w := harness.NewWorkload(srv, "tt", "dup", 11)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 400); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // committed before the second the snapshot is read as of
	var mu sync.Mutex
	evs := runDuringSnapshot(t, srv, "tt", "dup", snapshotInput(srv, "tt.dup"), nil, func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		return w.Insert(ctx, 1)
	})
	seen := map[string]int{}
	for _, ev := range evs {
		seen[fmt.Sprint(ev.Row["id"])]++
	}
	var twice []string
	for id := int64(1); id < w.NextID(); id++ {
		if n := seen[fmt.Sprint(id)]; n != 1 {
			twice = append(twice, fmt.Sprintf("%d×%d", id, n))
		}
	}
	if len(twice) > 0 {
		t.Fatalf("%d of %d rows did not arrive exactly once (id×count): %s", len(twice), w.NextID()-1, strings.Join(twice[:min(len(twice), 20)], " "))
	}
}

// TestExactSnapshotMergeOnWriteTable changes a merge-on-write table with
// historical values (inserts, updates, deletes) while an initial stream
// reads its snapshot: a strict consumer sees no insert of a key it has, no
// update or delete of a key it lacks, every before-image equal to its row,
// and ends equal to the table.
func TestExactSnapshotMergeOnWriteTable(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "tt", "mow", harness.TableOpts{Buckets: 8})
	w := harness.NewWorkload(srv, "tt", "mow", 12)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 400); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // committed before the second the snapshot is read as of
	logs := &harness.LogCapture{}
	evs := runDuringSnapshot(t, srv, "tt", "mow", snapshotInput(srv, "tt.mow"), logs, w.Step)
	c := harness.NewStrictConsumer("id")
	c.ApplyAll(evs)
	if len(c.Violations) > 0 {
		t.Fatalf("%d events a strict consumer cannot apply, the first: %s", len(c.Violations), strings.Join(c.Violations[:min(len(c.Violations), 5)], "\n"))
	}
	if diff := harness.Diff(harness.TableState(t, srv, "tt", "mow", "id", cols...), c.Rows); diff != "" {
		t.Fatalf("the strict consumer ends apart from the table: %s", diff)
	}
	if warn := logs.Lines(slog.LevelWarn, "Snapshot of tt.mow"); len(warn) > 0 {
		t.Fatalf("a table that can be read exactly was warned about: %s", warn[0].Text)
	}
}
