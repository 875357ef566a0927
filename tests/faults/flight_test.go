package faults

import (
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// windowIncident is the input's warn line for a failed window read.
const windowIncident = `Reading binlog window .* failed`

// TestFlightStreamCutMidWindow commits 500 rows in one transaction and cuts
// the DoGet stream of their window after 100 rows: the input re-reads the
// same window, skips the rows it already emitted, and loses nothing.
func TestFlightStreamCutMidWindow(t *testing.T) {
	f := startLatest(t, "cut_window")
	f.steps(t, 10)
	f.insert(t, 500)
	f.srv.SetFaults(dorissim.Faults{CutDoGetAfterRows: 100})
	f.steps(t, 10)
	f.assertNoLoss(t, 60*time.Second)
	f.srv.ClearFaults()
	assertWarned(t, f.logs, windowIncident, 3)
}

// TestGetFlightInfoFailures fails the next GetFlightInfo calls on the FE,
// which hits the window read and the session set-up on every reconnect.
func TestGetFlightInfoFailures(t *testing.T) {
	f := startLatest(t, "flight_info")
	f.steps(t, 20)
	f.srv.SetFaults(dorissim.Faults{FailGetFlightInfo: 3})
	f.steps(t, 20)
	f.assertNoLoss(t, 60*time.Second)
	assertWarned(t, f.logs, windowIncident, 3)
}

// TestFlightStreamCutMidSnapshot cuts a snapshot split's DoGet stream: the
// input re-reads that split from its start, so every row arrives (rows of
// the cut attempt may come twice; snapshot rows are upserts), and the
// stream ends normally.
func TestFlightStreamCutMidSnapshot(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "cut_snapshot", harness.TableOpts{Buckets: 2})
	w := harness.NewWorkload(srv, db, "cut_snapshot", 3)
	if err := w.Insert(ctxTimeout(t, time.Minute), 2000); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, srv, "cut_snapshot", w, &harness.Collector{})
	srv.SetFaults(dorissim.Faults{CutDoGetAfterRows: 300})
	in := harness.InputYAML(srv, db+".cut_snapshot", "scan_mode: snapshot", "batch_size: 100", "max_parallel_snapshot_splits: 1")
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: f.logs}, f.col)
	if err := f.run.Wait(t, 60*time.Second); err != nil {
		t.Fatalf("snapshot stream ended with %v", err)
	}
	want := harness.TableState(t, srv, db, "cut_snapshot", "id", cols...)
	got, err := harness.Replay(f.col.Events(), "id")
	if err != nil {
		t.Fatal(err)
	}
	if d := harness.Diff(want, got); d != "" {
		t.Fatalf("snapshot after a cut stream differs from the table:\n%s", d)
	}
	if n := len(f.col.Events()); n < 2000 || n > 2000+300 {
		t.Fatalf("%d snapshot rows delivered; want 2000 plus at most the 300 of the cut attempt", n)
	}
	assertWarned(t, f.logs, `Snapshot split .* failed, re-reading it from its start`, 1)
}
