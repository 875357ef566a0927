package ops

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestCheckpointStoreOutage refuses the MySQL port, where the doris cache
// keeps the checkpoint, while changes stream: delivery goes on, the saves
// wait and then succeed, one warning reports the outage and one info line
// its end, and a second pipeline on the same cache resumes exactly after
// the last change (no snapshot again, nothing delivered twice).
func TestCheckpointStoreOutage(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "ops", "busy", harness.TableOpts{Buckets: 2})
	harness.Exec(t, srv, "CREATE DATABASE IF NOT EXISTS meta")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wl := harness.NewWorkload(srv, "ops", "busy", 11)
	if err := wl.Insert(ctx, 20); err != nil {
		t.Fatal(err)
	}
	res := fmt.Sprintf("cache_resources:\n  - label: cp\n    doris:\n      jdbc_url: jdbc:mysql://%s?connectTimeout=1000\n      table: meta.checkpoints\n", srv.MySQLAddr())
	in := harness.InputYAML(srv, "ops.busy", "scan_mode: initial", "checkpoint_cache_key: busy")
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	run := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: res, Logs: logs}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 20 })

	srv.SetFaults(dorissim.Faults{Refuse: "mysql", RefuseFor: 4 * time.Second})
	for range 5 {
		if err := wl.Insert(ctx, 2); err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
	}
	col.WaitFor(t, 60*time.Second, "the changes made during the outage", func(evs []harness.Event) bool { return len(evs) >= 30 })
	waitLines(t, logs, slog.LevelInfo, "reachable again", 1)
	if warns := logs.Lines(slog.LevelWarn, "doris cache"); len(warns) < 1 || len(warns) > 3 {
		t.Errorf("%d doris cache warnings for one outage, want 1 to 3:\n%s", len(warns), logs.All())
	}
	// One more change after the outage, delivered and committed, then stop.
	if err := wl.Insert(ctx, 1); err != nil {
		t.Fatal(err)
	}
	col.WaitFor(t, 60*time.Second, "the change after the outage", func(evs []harness.Event) bool { return len(evs) >= 31 })
	if err := run.Stop(30 * time.Second); err != nil {
		t.Fatalf("stopping: %v", err)
	}
	if n := len(col.Events()); n != 31 {
		t.Errorf("first run delivered %d events, want 20 snapshot rows and 11 inserts", n)
	}
	if errs := col.Errors(); len(errs) > 0 {
		t.Errorf("consumer errors: %v", errs)
	}

	// A new pipeline on the same Doris-held checkpoint sees only what
	// comes next.
	col2 := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: res}, col2)
	time.Sleep(1500 * time.Millisecond) // a poll or so: nothing old may arrive
	next := fmt.Sprint(wl.NextID())
	if err := wl.Insert(ctx, 1); err != nil {
		t.Fatal(err)
	}
	col2.WaitFor(t, 60*time.Second, "the change after the restart", func(evs []harness.Event) bool { return len(evs) >= 1 })
	time.Sleep(1500 * time.Millisecond) // anything redelivered would come with it
	evs := col2.Events()
	if len(evs) != 1 || evs[0].Operation != "insert" || fmt.Sprint(evs[0].Row["id"]) != next {
		t.Fatalf("the restarted pipeline delivered %d events (%+v), want only the insert of id %s", len(evs), evs, next)
	}
}
