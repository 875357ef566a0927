package faults

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// startStalling starts a latest-mode stream on a table with a short binlog
// TTL, commits changes, and makes every following window query fail: the
// repeating window error of the fault matrix. It returns once the failure
// has been retried at least once.
func startStalling(t *testing.T, table string, extra ...string) (*fixture, *harness.MetricsCapture) {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, table, harness.TableOpts{TTLSeconds: expiryTTL})
	f := newFixture(t, srv, table, harness.NewWorkload(srv, db, table, 17), &harness.Collector{})
	m := &harness.MetricsCapture{}
	in := harness.InputYAML(srv, db+"."+table, append([]string{"scan_mode: latest", "batch_size: 50"}, extra...)...)
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: f.logs, Metrics: m}, f.col)
	harness.WaitCheckpoint(t, f.run, harness.CheckpointKey(db, table))
	srv.SetFaults(dorissim.Faults{FailGetFlightInfo: 1 << 30})
	f.insert(t, 10)
	waitLogged(t, f.logs, slog.LevelWarn, `Reading binlog window .* failed`, 30*time.Second)
	return f, m
}

// TestStalledWindowExpiresLoudly: a window whose query keeps failing is
// checked against binlog.ttl_seconds before every retry, so once its
// changes expire the stall ends with binlog_on_expired's answer (fail: the
// input stops, nothing is delivered, the checkpoint stays) instead of the
// retry succeeding later from the first retained change.
func TestStalledWindowExpiresLoudly(t *testing.T) {
	f, m := startStalling(t, "stall_fail", "binlog_on_expired: fail")
	waitLogged(t, f.logs, slog.LevelError, `binlog_on_expired: fail stops here`, time.Duration(expiryTTL+40)*time.Second)
	f.srv.ClearFaults()
	f.insert(t, 5)
	time.Sleep(3 * time.Second) // several poll intervals: nothing may be read past the gap
	if evs := f.col.Events(); len(evs) != 0 {
		t.Fatalf("a stalled window that expired still delivered %d events, first %+v", len(evs), evs[0])
	}
	if n := m.Counter("doris_binlog_expired_gaps_total"); n < 1 {
		t.Fatalf("doris_binlog_expired_gaps_total = %d, want >= 1", n)
	}
	if n := m.Counter("doris_binlog_window_retries_total"); n < 2 {
		t.Fatalf("doris_binlog_window_retries_total = %d, want >= 2 for a window retried through a stall", n)
	}
	if age, ok := m.GaugeMax("doris_binlog_window_retry_age_seconds"); !ok || age < 1 {
		t.Fatalf("doris_binlog_window_retry_age_seconds peaked at %d (set %v), want >= 1 during a stall of several seconds", age, ok)
	}
	assertWarned(t, f.logs, `Reading binlog window .* failed`, 3)
}

// TestStalledWindowExpiresContinue is the same stall with binlog_on_expired
// continue: the gap is logged and counted once, and once the fault is gone
// every later change arrives, none twice.
func TestStalledWindowExpiresContinue(t *testing.T) {
	f, m := startStalling(t, "stall_continue")
	waitLogged(t, f.logs, slog.LevelError, `binlog_on_expired: continue goes on`, time.Duration(expiryTTL+40)*time.Second)
	f.srv.ClearFaults()
	// Changes committed while the window still waits for its next retry
	// could expire too; the ones checked come after the recovery.
	waitLogged(t, f.logs, slog.LevelInfo, `read after \d+ failed attempt`, 60*time.Second)
	before := harness.TableState(t, f.srv, db, f.table, "id", cols...)
	f.steps(t, 20)
	want := harness.TableState(t, f.srv, db, f.table, "id", cols...)
	var diff string
	evs := f.col.WaitFor(t, 60*time.Second, "the changes after the gap", func(evs []harness.Event) bool {
		got, err := harness.ReplayOnto(before, evs, "id")
		if err != nil {
			return false
		}
		diff = harness.Diff(want, got)
		return diff == ""
	})
	if n := harness.DuplicatePositions(evs); n != 0 {
		t.Fatalf("%d positions delivered twice", n)
	}
	// The stalled window's gap is reported once, not at every retry; the
	// window after it may start before the retention too and is a gap of
	// its own.
	if n := m.Counter("doris_binlog_expired_gaps_total"); n < 1 || n > 2 {
		t.Fatalf("doris_binlog_expired_gaps_total = %d, want 1 or 2", n)
	}
}

// TestCatchUpGuardFailsClosed: a catch-up read whose start has expired, at
// a moment when /api/tso fails. The expiry guard cannot tell, so it must
// not read (Doris would silently start at the first retained change); it
// retries until it can tell, and then reports the gap.
func TestCatchUpGuardFailsClosed(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	start, w := expiredStart(t, srv, "guard_closed")
	key := db + ".guard_closed"
	dir := t.TempDir()
	writeCatchUpCheckpoint(t, srv, dir, harness.CheckpointKey(db, "guard_closed"), key, start)
	f := newFixture(t, srv, "guard_closed", w, &harness.Collector{})
	m := &harness.MetricsCapture{}
	srv.SetFaults(dorissim.Faults{TSOErrors: 3})
	in := harness.InputYAML(srv, key, "scan_mode: latest", "batch_size: 50")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(dir), Logs: f.logs, Metrics: m}, f.col)
	waitLogged(t, f.logs, slog.LevelError, `seconds of changes`, 60*time.Second)
	if n := m.Counter("doris_binlog_expired_gaps_total"); n != 1 {
		t.Fatalf("doris_binlog_expired_gaps_total = %d, want 1", n)
	}
}

// TestTooLargeWindowIsSplit: a window holding more binlog records than
// exec_mem_limit lets Doris read at once fails with MEM_LIMIT_EXCEEDED; the
// input reads it as consecutive halves instead, so every change arrives
// once and in order.
func TestTooLargeWindowIsSplit(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	table := "too_large"
	harness.CreateTable(t, srv, db, table, harness.TableOpts{})
	f := newFixture(t, srv, table, harness.NewWorkload(srv, db, table, 23), &harness.Collector{})
	m := &harness.MetricsCapture{}
	// 20 records fit. The workload below commits one record every 125 ms:
	// about 8 a second, so a one-second piece always fits, and a 5 s window
	// (about 40) does not.
	limit := 20 * storage.IncrRowMemBytes
	in := harness.InputYAML(srv, db+"."+table, "scan_mode: latest", "batch_size: 50", "binlog_poll_interval: 5s",
		"exec_mem_limit: "+strconv.Itoa(limit))
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: f.logs, Metrics: m}, f.col)
	harness.WaitCheckpoint(t, f.run, harness.CheckpointKey(db, table))
	for range 60 { // about 8 s of changes
		f.insert(t, 1)
		time.Sleep(125 * time.Millisecond)
	}
	evs := f.assertNoLoss(t, 90*time.Second)
	for i := 1; i < len(evs); i++ {
		if !harness.PosLess(evs[i-1].Pos(), evs[i].Pos()) {
			t.Fatalf("event %d at %v does not follow %v", i, evs[i].Pos(), evs[i-1].Pos())
		}
	}
	if len(f.logs.Lines(slog.LevelWarn, "reading it as two halves")) == 0 {
		t.Fatalf("no window was split; log:\n%s", f.logs.All())
	}
	if n := m.Counter("doris_binlog_window_retries_total"); n < 1 {
		t.Fatalf("doris_binlog_window_retries_total = %d, want >= 1", n)
	}
	for _, l := range f.logs.Lines(slog.LevelError, "") {
		if strings.Contains(l.Text, "binlog window") {
			t.Fatalf("a split window was reported as an error: %s", l.Text)
		}
	}
}

// TestSnapshotStallOutlivesBinlogTTL is the expiry cell of the matrix in
// the snapshot phase: an initial-mode snapshot whose queries keep failing
// for longer than binlog.ttl_seconds, while the table changes. The changes
// made during the stall are gone from the binlog when the snapshot ends, so
// the first window must not start as if nothing happened: with
// binlog_on_expired fail the input stops with the expiry error and
// delivers no binlog event.
func TestSnapshotStallOutlivesBinlogTTL(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	table := "snap_stall"
	harness.CreateTable(t, srv, db, table, harness.TableOpts{TTLSeconds: expiryTTL, Buckets: 8})
	w := harness.NewWorkload(srv, db, table, 29)
	if err := w.Insert(ctxTimeout(t, time.Minute), 2000); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // in a past Doris second: snapshot rows
	// 80 batches of 60 ms: the snapshot is still running when the fault hits.
	f := newFixture(t, srv, table, w, &harness.Collector{Delay: 60 * time.Millisecond})
	in := harness.InputYAML(srv, db+"."+table, "scan_mode: initial", "batch_size: 25", "max_parallel_snapshot_splits: 1",
		"binlog_on_expired: fail")
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: f.logs}, f.col)
	f.col.WaitFor(t, 60*time.Second, "the first snapshot batch", func(evs []harness.Event) bool { return len(evs) > 0 })
	srv.SetFaults(dorissim.Faults{FailGetFlightInfo: 1 << 30})
	f.insert(t, 5) // committed during the stall: expires before the binlog phase
	waitLogged(t, f.logs, slog.LevelWarn, `(?i)snapshot split .* failed|reconnecting`, 30*time.Second)
	time.Sleep(time.Duration(expiryTTL+2) * time.Second)
	srv.ClearFaults()
	waitLogged(t, f.logs, slog.LevelError, `binlog_on_expired: fail stops here`, 90*time.Second)
	for _, ev := range f.col.Events() {
		if ev.Phase == "binlog" {
			t.Fatalf("a binlog event was delivered after an expired gap: %+v", ev)
		}
	}
}
