package e2e

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The 2026 transitions the simulator reproduces: New York repeats 01:00-02:00
// (EDT, then EST) from 06:00 UTC on 2026-11-01; Berlin skips 02:00-03:00
// (CET to CEST) at 01:00 UTC on 2026-03-29.
var (
	nyFallBack       = time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	berlinSpringFwd  = time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)
	utcLayout        = "2006-01-02 15:04:05"
	transitionWriter = 200 * time.Millisecond
)

// simNowMs is the simulator's clock (its current TSO's physical time).
func simNowMs(srv *dorissim.Server) int64 { return srv.Store().CurrentTSO().PhysicalMs }

// writeUntil commits one workload step every 200 ms until the simulator's
// clock reaches end; it returns a func that waits for the writer and fails
// the test on a write error.
func writeUntil(t *testing.T, srv *dorissim.Server, w *harness.Workload, end time.Time) (wait func()) {
	t.Helper()
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx := ctxTimeout(t, 2*time.Minute)
		tick := time.NewTicker(transitionWriter)
		defer tick.Stop()
		for simNowMs(srv) < end.UnixMilli() {
			if err = w.Step(ctx); err != nil {
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				err = ctx.Err()
				return
			}
		}
	}()
	return func() {
		wg.Wait()
		if err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
}

// waitSimPast blocks (bounded) until the simulator's clock is past at.
func waitSimPast(t *testing.T, srv *dorissim.Server, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(time.Duration(at.UnixMilli()-simNowMs(srv))*time.Millisecond + 10*time.Second)
	for simNowMs(srv) <= at.UnixMilli() {
		if time.Now().After(deadline) {
			t.Fatalf("simulator clock did not pass %s", at.Format(time.RFC3339))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkTransitionRun asserts what a run across a transition must give: the
// replay equals the table, no binlog position came twice, every binlog row
// lies inside its window read as UTC, some rows were committed after the
// transition, no error was logged and the input never stopped.
func checkTransitionRun(t *testing.T, transition time.Time, all []harness.Event, logs ...*harness.LogCapture) {
	t.Helper()
	if n := harness.DuplicatePositions(all); n != 0 {
		t.Fatalf("%d binlog positions were delivered twice", n)
	}
	after := 0
	for _, ev := range all {
		if ev.Phase != "binlog" {
			continue
		}
		commit := time.UnixMilli(ev.CommitTSMs).UTC().Format(utcLayout)
		if commit < ev.WindowStart || commit >= ev.WindowEnd {
			t.Fatalf("row committed at %s UTC delivered in window [%s, %s): window bounds are not UTC", commit, ev.WindowStart, ev.WindowEnd)
		}
		if ev.CommitTSMs >= transition.UnixMilli()+2000 {
			after++
		}
	}
	if after == 0 {
		t.Fatal("no binlog row committed after the transition was delivered")
	}
	for _, lc := range logs {
		if errs := lc.Lines(slog.LevelError, ""); len(errs) > 0 {
			t.Fatalf("error logged: %s", errs[0].Text)
		}
		if stops := lc.Lines(slog.LevelWarn, "Reading stopped"); len(stops) > 0 {
			t.Fatalf("the input stopped: %s", stops[0].Text)
		}
	}
}

// streamAcross runs an initial-mode stream on an FE in zone whose clock
// starts lead before transition, while a writer commits every 200 ms until
// lead after it; the replay must equal the table.
func streamAcross(t *testing.T, zone string, transition time.Time, lead time.Duration) {
	srv := harness.StartSim(t, dorissim.Config{TimeZone: zone, ClockStart: transition.Add(-lead)})
	harness.CreateTable(t, srv, "tz", "across", harness.TableOpts{})
	w := harness.NewWorkload(srv, "tz", "across", 11)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.InputYAML(srv, "tz.across", "scan_mode: initial", "debug_metadata: true") // each row says its window
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(t.TempDir()), Logs: logs}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 20 })
	writeUntil(t, srv, w, transition.Add(lead))()

	want := harness.TableState(t, srv, "tz", "across", "id", cols...)
	all := col.WaitFor(t, 30*time.Second, "the replay to equal the table", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	checkTransitionRun(t, transition, all, logs)
	if lines := logs.Lines(slog.LevelInfo, zone+")"); len(lines) == 0 {
		t.Fatalf("no log line shows a bound in the FE zone %s too", zone)
	}
}

// An FE in America/New_York streams across the 2026-11-01 fall-back: its
// wall clock goes from 01:59:59 EDT back to 01:00:00 EST, the UTC bounds go
// on.
func TestStreamAcrossFallBackNewYork(t *testing.T) {
	streamAcross(t, "America/New_York", nyFallBack, 20*time.Second)
}

// An FE in Europe/Berlin streams across the 2026-03-29 spring-forward: its
// wall clock jumps from 01:59:59 CET to 03:00:00 CEST.
func TestStreamAcrossSpringForwardBerlin(t *testing.T) {
	streamAcross(t, "Europe/Berlin", berlinSpringFwd, 20*time.Second)
}

// A graceful stop and a restart inside New York's repeated hour (its second
// pass, EST): the stored window start is one UTC instant, so the second run
// neither re-reads nor skips the hour's first pass.
func TestRestartInsideRepeatedHour(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{TimeZone: "America/New_York", ClockStart: nyFallBack.Add(-8 * time.Second)})
	harness.CreateTable(t, srv, "tz", "restart", harness.TableOpts{})
	w := harness.NewWorkload(srv, "tz", "restart", 12)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	cache := harness.FileCache(t.TempDir())
	in := harness.InputYAML(srv, "tz.restart", "scan_mode: initial", "debug_metadata: true")
	logs1, logs2 := &harness.LogCapture{}, &harness.LogCapture{}
	first, second := &harness.Collector{}, &harness.Collector{}
	r1 := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache, Logs: logs1}, first)
	first.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 20 })
	waitWriter := writeUntil(t, srv, w, nyFallBack.Add(14*time.Second))

	waitSimPast(t, srv, nyFallBack.Add(4*time.Second)) // 01:00:04 EST, the second 01:00:04 of the day
	first.WaitFor(t, 20*time.Second, "a row of the repeated hour's second pass", func(evs []harness.Event) bool {
		for _, ev := range evs {
			if ev.CommitTSMs >= nyFallBack.UnixMilli() {
				return true
			}
		}
		return false
	})
	if err := r1.Stop(20 * time.Second); err != nil {
		t.Fatalf("stopping the first run: %v", err)
	}
	time.Sleep(1500 * time.Millisecond) // commits while the input is down
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache, Logs: logs2}, second)
	waitWriter()

	want := harness.TableState(t, srv, "tz", "restart", "id", cols...)
	all := second.WaitFor(t, 30*time.Second, "the replay to equal the table", func(evs []harness.Event) bool {
		got, err := harness.Replay(append(first.Events(), evs...), "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	for _, ev := range all {
		if ev.Phase != "binlog" {
			t.Fatalf("the second run read the snapshot again: %+v", ev)
		}
	}
	checkTransitionRun(t, nyFallBack, append(first.Events(), all...), logs1, logs2)
	if lines := logs2.Lines(slog.LevelInfo, "Resuming from the checkpoint"); len(lines) == 0 || !strings.Contains(lines[0].Text, "2026-11-01 06:00:") {
		t.Fatalf("the second run did not resume inside the repeated hour in UTC: %v", lines)
	}
}
