package ops

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	_ "github.com/rpconnect-doris/rpconnect-doris/cache"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestIdlePipelineLogsNothingAboveDebug starts a snapshot-then-binlog
// pipeline with its checkpoint in the doris cache, lets it reach the binlog
// phase, and then, while nothing changes, expects only debug lines over
// several polls and table discoveries.
func TestIdlePipelineLogsNothingAboveDebug(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "ops", "quiet", harness.TableOpts{Buckets: 2})
	harness.Exec(t, srv, "CREATE DATABASE IF NOT EXISTS meta")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := harness.NewWorkload(srv, "ops", "quiet", 5).Insert(ctx, 10); err != nil {
		t.Fatal(err)
	}
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	res := fmt.Sprintf("cache_resources:\n  - label: cp\n    doris:\n      jdbc_url: jdbc:mysql://%s\n      table: meta.checkpoints\n", srv.MySQLAddr())
	harness.RunStream(t, harness.StreamConfig{
		// Table discovery every second: an unchanged listing is quiet too.
		Input:     harness.SelectYAML(srv, `include: ['ops\.qu.*']`, "scan_mode: initial", "table_discovery_interval: 1s"),
		Resources: res,
		Logs:      logs,
	}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 10 })
	waitLines(t, logs, slog.LevelInfo, "Binlog phase", 1)
	// The start is over once the first binlog window has been read.
	waitLines(t, logs, slog.LevelDebug, "Reading binlog window", 1)
	before := len(logs.Lines(slog.LevelInfo, ""))
	// A poll logs "Reading binlog window [...", or "Binlog window [...):
	// 0 table(s) read, 1 idle table(s) skipped" once skip_idle_tables
	// leaves the unchanged table out.
	const poll = "inlog window ["
	windows := len(logs.Lines(slog.LevelDebug, poll))
	// Idle: three more polls (one a second), each a debug line only.
	waitLines(t, logs, slog.LevelDebug, poll, windows+3)
	if after := logs.Lines(slog.LevelInfo, ""); len(after) > before {
		for _, l := range after[before:] {
			t.Errorf("logged while idle: %s %s", l.Level, l.Text)
		}
	}
	if n := len(col.Events()); n != 10 {
		t.Errorf("delivered %d events while idle, want the 10 snapshot rows", n)
	}
}

// waitLines waits (bounded) until at least n captured lines at or above min
// contain sub.
func waitLines(t *testing.T, logs *harness.LogCapture, min slog.Level, sub string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(logs.Lines(min, sub)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d %s lines containing %q within 30s:\n%s", n, min, sub, logs.All())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
