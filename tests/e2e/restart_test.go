package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestRestartResumesWithoutSnapshotOrDuplicates stops an initial-mode stream
// after its snapshot and some changes, changes the table while it is down,
// and starts it again on the same file cache: the second run takes no
// snapshot, repeats nothing, and both runs together rebuild the table.
func TestRestartResumesWithoutSnapshotOrDuplicates(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "restart", harness.TableOpts{})
	w := harness.NewWorkload(srv, "e2e", "restart", 42)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 50); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	cache := harness.FileCache(t.TempDir())
	in := harness.InputYAML(srv, "e2e.restart", "scan_mode: initial", "batch_size: 7")

	first := &harness.Collector{}
	r1 := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache}, first)
	first.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 50 })
	runWorkload(t, w, 30)
	want := harness.TableState(t, srv, "e2e", "restart", "id", cols...)
	first.WaitFor(t, 45*time.Second, "the first run's changes", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	if err := r1.Stop(20 * time.Second); err != nil {
		t.Fatalf("stopping the first run: %v", err)
	}

	runWorkload(t, w, 30) // while the input is down
	want = harness.TableState(t, srv, "e2e", "restart", "id", cols...)

	second := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache}, second)
	var diff string
	all := second.WaitFor(t, 45*time.Second, "the second run's changes", func(evs []harness.Event) bool {
		got, err := harness.Replay(append(first.Events(), evs...), "id")
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		diff = harness.Diff(want, got)
		return diff == ""
	})
	for _, ev := range all {
		if ev.Phase != "binlog" {
			t.Fatalf("second run re-read the snapshot: %+v", ev)
		}
	}
	if n := harness.DuplicatePositions(append(first.Events(), all...)); n != 0 {
		t.Fatalf("%d binlog events were delivered by both runs", n)
	}
}

// TestSnapshotModeEnds reads a table once with read_field and filter_query,
// then the stream ends by itself.
func TestSnapshotModeEnds(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "snap", harness.TableOpts{Buckets: 8, NoBinlog: true})
	w := harness.NewWorkload(srv, "e2e", "snap", 7)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 1000); err != nil {
		t.Fatal(err)
	}
	col := &harness.Collector{}
	in := harness.InputYAML(srv, "e2e.snap", "scan_mode: snapshot", "read_field: id,qty", "filter_query: \"`id` > 100\"",
		"batch_size: 100", "max_parallel_snapshot_splits: 3")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
	if err := r.Wait(t, 60*time.Second); err != nil {
		t.Fatalf("snapshot stream ended with %v", err)
	}
	evs := col.Events()
	if len(evs) != 900 {
		t.Fatalf("snapshot delivered %d rows, want 900", len(evs))
	}
	seen := map[string]bool{}
	for _, ev := range evs {
		id := fmt.Sprint(ev.Row["id"])
		if len(ev.Row) != 2 || ev.Row["qty"] == nil || seen[id] || ev.Operation != "read" || ev.Phase != "snapshot" {
			t.Fatalf("unexpected snapshot row %+v", ev)
		}
		seen[id] = true
	}
}
