// Package faults drives the doris_binlog input through dorissim's fault
// injection: in every case the stream recovers by itself, loses nothing, and
// logs the incident at warn level without flooding.
package faults

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/rpconnect-doris/rpconnect-doris/cache" // the doris cache of the fault matrix
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

var cols = []string{"id", "name", "qty", "amount"}

const db = "faults"

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// fixture is one simulator, one table, one workload and one running stream.
type fixture struct {
	srv   *dorissim.Server
	table string
	w     *harness.Workload
	col   *harness.Collector
	logs  *harness.LogCapture
	run   *harness.Running
}

// newFixture is a fixture without a stream yet; a failed test prints the
// stream's log.
func newFixture(t *testing.T, srv *dorissim.Server, table string, w *harness.Workload, col *harness.Collector) *fixture {
	f := &fixture{srv: srv, table: table, w: w, col: col, logs: &harness.LogCapture{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stream log:\n%s", f.logs.All())
		}
	})
	return f
}

// startLatest starts a latest-mode stream on a fresh table and waits until
// its start is stored, so that every later change belongs to the stream.
func startLatest(t *testing.T, table string, extra ...string) *fixture {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, table, harness.TableOpts{})
	f := newFixture(t, srv, table, harness.NewWorkload(srv, db, table, 7), &harness.Collector{})
	in := harness.InputYAML(srv, db+"."+table, append([]string{"scan_mode: latest", "batch_size: 50"}, extra...)...)
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: f.logs}, f.col)
	harness.WaitCheckpoint(t, f.run, harness.CheckpointKey(db, table))
	return f
}

// steps applies n workload transactions.
func (f *fixture) steps(t *testing.T, n int) {
	t.Helper()
	ctx := ctxTimeout(t, time.Minute)
	for i := range n {
		if err := f.w.Step(ctx); err != nil {
			t.Fatalf("workload step %d: %v", i, err)
		}
	}
}

// insert adds n rows in one transaction.
func (f *fixture) insert(t *testing.T, n int) {
	t.Helper()
	if err := f.w.Insert(ctxTimeout(t, time.Minute), n); err != nil {
		t.Fatalf("inserting %d rows: %v", n, err)
	}
}

// assertNoLoss waits until the delivered events rebuild the table, then
// checks that no binlog position was delivered twice.
func (f *fixture) assertNoLoss(t *testing.T, timeout time.Duration) []harness.Event {
	t.Helper()
	return f.assertRebuilt(t, timeout, func(evs []harness.Event) []harness.Event { return evs })
}

// assertRebuilt waits until the delivered events, in the order order gives
// them, rebuild the table, then checks that no binlog position was
// delivered twice.
func (f *fixture) assertRebuilt(t *testing.T, timeout time.Duration, order func([]harness.Event) []harness.Event) []harness.Event {
	t.Helper()
	want := harness.TableState(t, f.srv, db, f.table, "id", cols...)
	var diff string
	evs := f.col.WaitFor(t, timeout, "every change after the fault", func(evs []harness.Event) bool {
		got, err := harness.Replay(order(evs), "id")
		if err != nil {
			diff = err.Error()
			return false
		}
		diff = harness.Diff(want, got)
		return diff == ""
	})
	if diff != "" {
		t.Fatalf("replay differs from the table:\n%s", diff)
	}
	if n := harness.DuplicatePositions(evs); n != 0 {
		t.Fatalf("%d binlog positions were delivered twice", n)
	}
	return evs
}

// assertWarned checks that lines matching re were logged at warn level at
// least once and at most max times, and that none of them is an error.
func assertWarned(t *testing.T, logs *harness.LogCapture, re string, max int) {
	t.Helper()
	pat := regexp.MustCompile(re)
	var warns, errs int
	for _, l := range logs.Lines(slog.LevelDebug, "") {
		if !pat.MatchString(l.Text) {
			continue
		}
		switch {
		case l.Level >= slog.LevelError:
			errs++
		case l.Level >= slog.LevelWarn:
			warns++
		}
	}
	if warns == 0 || warns > max || errs > 0 {
		t.Fatalf("want 1..%d warn lines and no error lines matching %q, got %d warn and %d error lines; log:\n%s",
			max, re, warns, errs, logs.All())
	}
}

// waitLogged waits until a line matching re is logged at min level or above.
func waitLogged(t *testing.T, logs *harness.LogCapture, min slog.Level, re string, timeout time.Duration) {
	t.Helper()
	pat := regexp.MustCompile(re)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, l := range logs.Lines(min, "") {
			if pat.MatchString(l.Text) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing matching %q logged at %s or above within %s; log:\n%s", re, min, timeout, logs.All())
}

// replaceFENodes points an InputYAML input at another FE address.
func replaceFENodes(inputYAML, from, to string) string {
	return strings.Replace(inputYAML, "fenodes: "+from, "fenodes: "+to, 1)
}
