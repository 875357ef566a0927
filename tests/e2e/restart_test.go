package e2e

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
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

// TestOldDefaultKeyCarriesOver runs a stream that stores its checkpoint
// under the default key of earlier builds (`doris_binlog_<db>_<table>`),
// then restarts it with the default key on the same file cache: the second
// run finds the old key, logs the carry-over, writes the new key, and goes
// on from the stored position without a snapshot, losing and repeating
// nothing.
func TestOldDefaultKeyCarriesOver(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "old_key", harness.TableOpts{})
	w := harness.NewWorkload(srv, "e2e", "old_key", 43)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 40); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	dir := t.TempDir()
	cache := harness.FileCache(dir)
	oldKey, newKey := "doris_binlog_e2e_old_key", harness.CheckpointKey("e2e", "old_key")
	if oldKey == newKey {
		t.Fatalf("the default key is still %s", oldKey)
	}

	first := &harness.Collector{}
	r1 := harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.old_key", "scan_mode: initial", "checkpoint_cache_key: "+oldKey), Resources: cache}, first)
	first.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 40 })
	runWorkload(t, w, 20)
	want := harness.TableState(t, srv, "e2e", "old_key", "id", cols...)
	first.WaitFor(t, 45*time.Second, "the first run's changes", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	if err := r1.Stop(20 * time.Second); err != nil {
		t.Fatalf("stopping the first run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, newKey)); !os.IsNotExist(err) {
		t.Fatalf("the first run wrote the new key %s (%v)", newKey, err)
	}

	runWorkload(t, w, 20) // while the input is down
	want = harness.TableState(t, srv, "e2e", "old_key", "id", cols...)
	logs := &harness.LogCapture{}
	second := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.old_key", "scan_mode: initial"), Resources: cache, Logs: logs}, second)
	all := second.WaitFor(t, 45*time.Second, "the second run's changes", func(evs []harness.Event) bool {
		got, err := harness.Replay(append(first.Events(), evs...), "id")
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		return harness.Diff(want, got) == ""
	})
	for _, ev := range all {
		if ev.Phase != "binlog" {
			t.Fatalf("the second run took a snapshot instead of carrying the checkpoint over: %+v", ev)
		}
	}
	if n := harness.DuplicatePositions(append(first.Events(), all...)); n != 0 {
		t.Fatalf("%d binlog events were delivered by both runs", n)
	}
	if len(logs.Lines(slog.LevelInfo, "Carrying the checkpoint over from key "+oldKey+" to key "+newKey)) != 1 {
		t.Fatalf("the carry-over was not logged once\n%s", logs.All())
	}
	harness.WaitFor(t, 10*time.Second, "the checkpoint under the new key", func() bool {
		_, err := os.Stat(filepath.Join(dir, newKey))
		return err == nil
	})
	if st := harness.StoredStateFile(t, dir, newKey); st.Tables["e2e.old_key"] == nil || st.Tables["e2e.old_key"].Phase != checkpoint.PhaseBinlog {
		t.Fatalf("the new key holds %+v", st)
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

// TestSingleTableCheckpointCarriesOver resumes from a checkpoint in the
// version 1 layout of the single-table input: no snapshot, and the binlog
// from its window on.
func TestSingleTableCheckpointCarriesOver(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "v1", harness.TableOpts{})
	w := harness.NewWorkload(srv, "e2e", "v1", 5)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	start := harness.Now(t, srv)
	before := harness.TableState(t, srv, "e2e", "v1", "id", cols...)
	time.Sleep(1100 * time.Millisecond)
	runWorkload(t, w, 20)
	dir := t.TempDir()
	v1 := fmt.Sprintf(`{"version":1,"table":"e2e.v1","phase":"binlog","window_start":%q,"seq":4,"saved_at":"2026-01-01T00:00:00Z"}`, start)
	for _, key := range []string{"doris_binlog_e2e_v1", "doris_binlog_e2e_v1.bak"} {
		if err := os.WriteFile(filepath.Join(dir, key), []byte(v1), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.v1", "scan_mode: initial"), Resources: harness.FileCache(dir), Logs: logs}, col)
	want := harness.TableState(t, srv, "e2e", "v1", "id", cols...)
	col.WaitFor(t, 30*time.Second, "the changes after the stored window", func(evs []harness.Event) bool {
		got, err := harness.ReplayOnto(before, evs, "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	for _, ev := range col.Events() {
		if ev.Phase != "binlog" {
			t.Fatalf("a snapshot was taken despite the carried-over checkpoint: %+v", ev)
		}
	}
	if len(logs.Lines(slog.LevelInfo, "version 1 layout of a single-table input")) != 1 {
		t.Fatalf("the carry-over was not logged\n%s", logs.All())
	}
	harness.WaitFor(t, 10*time.Second, "a version 2 checkpoint", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, harness.CheckpointKey("e2e", "v1")))
		return err == nil && strings.Contains(string(b), fmt.Sprintf(`"version":%d`, checkpoint.Version))
	})
}

// TestRestartEmitsTheSameBatches kills an output while it holds the only
// batch of a window, with more changes coming after that window, then
// restarts: the first batch after the committed position is exactly the one
// the dead output had been handed, because the window's end was saved before
// its rows went out. Without that, the restart would choose a later end and
// merge the later changes into that batch.
func TestRestartEmitsTheSameBatches(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "det", harness.TableOpts{})
	w := harness.NewWorkload(srv, "e2e", "det", 9)
	dir := t.TempDir()
	in := harness.InputYAML(srv, "e2e.det", "scan_mode: latest", "batch_size: 7", "checkpoint_cache_key: det")
	first := &harness.Collector{BlockFrom: 2}
	r1 := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(dir)}, first)
	harness.WaitCheckpoint(t, r1, "det")
	insert := func(n int) {
		if err := w.Insert(ctxTimeout(t, 30*time.Second), n); err != nil {
			t.Fatal(err)
		}
	}
	insert(7) // one window, one batch: acked
	harness.WaitFor(t, 30*time.Second, "the first batch", func() bool { return len(first.Batches()) >= 1 })
	time.Sleep(1200 * time.Millisecond)
	insert(3) // a later window, one batch of 3: the output dies holding it
	harness.WaitFor(t, 30*time.Second, "the second batch to reach the dead output", func() bool { return len(first.Batches()) >= 2 })
	time.Sleep(1200 * time.Millisecond)
	insert(10) // still later windows
	time.Sleep(1200 * time.Millisecond)
	_ = r1.Stop(2 * time.Second) // the output never acked the second batch
	handed := first.Batches()[1]

	second := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(dir)}, second)
	harness.WaitFor(t, 30*time.Second, "the restart's first batch", func() bool { return len(second.Batches()) >= 1 })
	again := second.Batches()[0]
	if len(again) != len(handed) {
		t.Fatalf("the restart's first batch has %d rows, the dead output had been handed %d", len(again), len(handed))
	}
	for i := range again {
		if again[i].Pos() != handed[i].Pos() {
			t.Fatalf("row %d of the first batch after the restart is %v, before it was %v", i, again[i].Pos(), handed[i].Pos())
		}
	}
	want := harness.TableState(t, srv, "e2e", "det", "id", cols...)
	second.WaitFor(t, 30*time.Second, "every change", func(evs []harness.Event) bool {
		got, err := harness.Replay(append(first.Events(), evs...), "id")
		return err == nil && harness.Diff(want, got) == ""
	})
}

// TestRestartMidSnapshotEmitsTheSameBatches: in the snapshot phase the
// unit of progress is a split, read again from its start after a restart.
// With the table unchanged in between, the batches of that split come out
// as before.
func TestRestartMidSnapshotEmitsTheSameBatches(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "detsnap", harness.TableOpts{Buckets: 2})
	if err := harness.NewWorkload(srv, "e2e", "detsnap", 3).Insert(ctxTimeout(t, 30*time.Second), 60); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // in a past Doris second: in the snapshot
	dir := t.TempDir()
	in := harness.InputYAML(srv, "e2e.detsnap", "scan_mode: initial", "batch_size: 7", "max_parallel_snapshot_splits: 1", "checkpoint_cache_key: detsnap")
	first := &harness.Collector{BlockFrom: 2}
	r1 := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(dir)}, first)
	harness.WaitFor(t, 30*time.Second, "the second batch to reach the dead output", func() bool { return len(first.Batches()) >= 2 })
	_ = r1.Stop(2 * time.Second)
	handed := first.Batches()[1]

	second := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(dir)}, second)
	harness.WaitFor(t, 30*time.Second, "the restart's batches", func() bool { return len(second.Batches()) >= 2 })
	// The first split's first batch was acked, so the split is read again
	// from its start: its first batch repeats, then the one the output died
	// holding.
	again := second.Batches()[1]
	if len(again) != len(handed) {
		t.Fatalf("the restart's second batch has %d rows, the dead output had been handed %d", len(again), len(handed))
	}
	for i := range again {
		if again[i].Row["id"] != handed[i].Row["id"] {
			t.Fatalf("row %d differs after the restart: %v, before %v", i, again[i].Row["id"], handed[i].Row["id"])
		}
	}
}
