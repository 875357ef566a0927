package e2e

import (
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// What a table that cannot be read as of a TSO gets instead (issue 34
// point 3), and what stops the input.

// waitLogLine waits (bounded) for a log line at level or above holding
// every one of subs, and returns it.
func waitLogLine(t *testing.T, logs *harness.LogCapture, level slog.Level, timeout time.Duration, subs ...string) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, l := range logs.Lines(level, subs[0]) {
			all := true
			for _, s := range subs[1:] {
				all = all && strings.Contains(l.Text, s)
			}
			if all {
				return l.Text
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s line with %q within %s; the log:\n%s", level, subs, timeout, logs.All())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countLines counts the lines at level or above holding sub.
func countLines(logs *harness.LogCapture, level slog.Level, sub string) int {
	return len(logs.Lines(level, sub))
}

// A merge-on-write table without historical values cannot be read as of a
// TSO: its snapshot keeps the rows written at or before it, so no key
// comes both in the snapshot and as a binlog insert, and a warning says
// once what the consumers miss.
func TestSnapshotFallbackFiltersByCommitTSO(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "tt", "nohist", harness.TableOpts{Buckets: 8, NoBeforeImages: true})
	w := harness.NewWorkload(srv, "tt", "nohist", 13)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 400); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // committed before the second the snapshot is read as of
	logs := &harness.LogCapture{}
	evs := runDuringSnapshot(t, srv, "tt", "nohist", snapshotInput(srv, "tt.nohist"), logs, w.Step)
	line := waitLogLine(t, logs, slog.LevelWarn, time.Second, "Snapshot of tt.nohist", "binlog.need_historical_value", "__DORIS_COMMIT_TSO_COL__", "never see the key's value at the start")
	if n := countLines(logs, slog.LevelWarn, "Snapshot of tt.nohist"); n != 1 {
		t.Fatalf("the fallback was logged %d times, want once: %s", n, line)
	}
	c := harness.NewStrictConsumer("id")
	c.ApplyAll(evs)
	for _, v := range c.Violations {
		// What the fallback gives up: a change of a key the snapshot left
		// out, with a before-image the consumer never had. (Without
		// historical values Doris writes an upsert of a key as an insert.)
		if strings.HasPrefix(v, "snapshot row of key") || strings.Contains(v, "does not come after") {
			t.Fatalf("a change came twice: %s", v)
		}
	}
	// A change in both phases: the snapshot holds the row it wrote, and the
	// binlog then writes the very same row again.
	held := map[string]harness.Row{}
	for _, ev := range evs {
		row := harness.TextRow(ev.Row)
		k := row["id"]
		switch {
		case ev.Phase != "binlog":
			held[k] = row
		case ev.Operation == "insert" || ev.Operation == "update_after":
			if maps.Equal(held[k], row) {
				t.Fatalf("binlog %s of key %s at tso %d writes the row the snapshot already gave: %v", ev.Operation, k, ev.TSO, row)
			}
			held[k] = row
		case ev.Operation == "delete":
			delete(held, k)
		}
	}
	if diff := harness.Diff(harness.TableState(t, srv, "tt", "nohist", "id", cols...), c.Rows); diff != "" {
		t.Fatalf("the consumer ends apart from the table: %s", diff)
	}
}

// An FE from before time travel on OLAP tables parses FOR VERSION AS OF
// and ignores it: the input must find that out from the missing hidden
// column, not from the absence of an error, read the table at the current
// version and warn, naming the table and the reason.
func TestSnapshotFallbackOnAnFEWithoutTimeTravel(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{PreTimeTravelFE: true})
	harness.CreateTable(t, srv, "tt", "oldfe", harness.TableOpts{Buckets: 4})
	w := harness.NewWorkload(srv, "tt", "oldfe", 14)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 50); err != nil {
		t.Fatal(err)
	}
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "tt.oldfe", "scan_mode: initial"), Resources: harness.MemoryCache, Logs: logs}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 50 })
	waitLogLine(t, logs, slog.LevelWarn, 10*time.Second, "Snapshot of tt.oldfe is read at the current version", "__DORIS_COMMIT_TSO_COL__", "can come twice")
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	col.WaitFor(t, 30*time.Second, "the insert after the snapshot", func(evs []harness.Event) bool { return len(evs) >= 51 })
	if n := countLines(logs, slog.LevelWarn, "Snapshot of tt.oldfe"); n != 1 {
		t.Fatalf("the fallback was logged %d times, want once", n)
	}
}

// snapshot_consistency: exact refuses, at the connection test and at the
// start, a table that cannot give it, naming the table property to set;
// it reads nothing of it.
func TestSnapshotConsistencyExactRefusesATable(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "tt", "nohist", harness.TableOpts{NoBeforeImages: true})
	harness.CreateTable(t, srv, "tt", "hist", harness.TableOpts{})
	harness.Exec(t, srv, "INSERT INTO tt.nohist VALUES (1, 'a', 1, 1.00)", "INSERT INTO tt.hist VALUES (1, 'a', 1, 1.00)")

	fails := failures(connectionTest(t, harness.InputYAML(srv, "tt.hist", "scan_mode: initial", "snapshot_consistency: exact")))
	if len(fails) != 0 {
		t.Fatalf("a table that can be read exactly failed the connection test: %v", fails)
	}
	fails = failures(connectionTest(t, harness.InputYAML(srv, "tt.nohist", "scan_mode: initial", "snapshot_consistency: exact")))
	if len(fails) != 1 || !strings.Contains(fails[0], "tt.nohist") || !strings.Contains(fails[0], `"binlog.need_historical_value" = "true"`) {
		t.Fatalf("connection test with snapshot_consistency: exact: %v, want one failure naming tt.nohist and binlog.need_historical_value", fails)
	}

	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "tt.nohist", "scan_mode: initial", "snapshot_consistency: exact"), Resources: harness.MemoryCache, Logs: logs}, col)
	waitLogLine(t, logs, slog.LevelError, 30*time.Second, "snapshot_consistency is exact", "tt.nohist", `"binlog.need_historical_value" = "true"`)
	if evs := col.Events(); len(evs) != 0 {
		t.Fatalf("%d rows were delivered of a table exact refuses", len(evs))
	}
}
