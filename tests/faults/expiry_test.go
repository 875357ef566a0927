package faults

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const expiryTTL = 6 // seconds; longer than a poll interval plus a window read

// expiredStart creates a table with a short binlog TTL, commits changes,
// and waits until they have expired. It returns the scan_timestamp from
// before those changes and the table as it is once they are gone.
func expiredStart(t *testing.T, srv *dorissim.Server, table string) (string, *harness.Workload) {
	t.Helper()
	harness.CreateTable(t, srv, db, table, harness.TableOpts{TTLSeconds: expiryTTL})
	start := harness.Now(t, srv)
	time.Sleep(1100 * time.Millisecond)
	w := harness.NewWorkload(srv, db, table, 13)
	if err := w.Insert(ctxTimeout(t, time.Minute), 20); err != nil {
		t.Fatal(err)
	}
	time.Sleep((expiryTTL + 2) * time.Second)
	return start, w
}

var gapRe = regexp.MustCompile(`(\d+) seconds of changes`)

// assertGapLogged checks the expiry error: logged at error level, saying how
// many seconds are gone and how to recover.
func assertGapLogged(t *testing.T, logs *harness.LogCapture, maxGap time.Duration) {
	t.Helper()
	waitLogged(t, logs, slog.LevelError, `seconds of changes`, 30*time.Second)
	line := logs.Lines(slog.LevelError, "seconds of changes")[0].Text
	m := gapRe.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("expiry error does not say how many seconds are gone: %s", line)
	}
	n, _ := strconv.Atoi(m[1])
	if n < 1 || time.Duration(n)*time.Second > maxGap {
		t.Fatalf("expiry error says %d seconds are gone, want 1..%s: %s", n, maxGap, line)
	}
	for _, want := range []string{"To recover", "scan_mode: initial", "checkpoint", "binlog.ttl_seconds"} {
		if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(line) {
			t.Fatalf("expiry error lacks %q: %s", want, line)
		}
	}
}

// TestExpiredWindowContinue starts from a timestamp whose changes have
// expired: with binlog_on_expired continue the gap is logged and counted
// once, and the stream goes on with every later change.
func TestExpiredWindowContinue(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	began := time.Now()
	start, w := expiredStart(t, srv, "expiry_continue")
	before := harness.TableState(t, srv, db, "expiry_continue", "id", cols...)
	f := newFixture(t, srv, "expiry_continue", w, &harness.Collector{})
	logs, m, col := f.logs, &harness.MetricsCapture{}, f.col
	in := harness.InputYAML(srv, db+".expiry_continue", "scan_mode: from-timestamp", "scan_timestamp: \""+start+"\"", "batch_size: 50")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs, Metrics: m}, col)
	assertGapLogged(t, logs, time.Since(began))
	f.steps(t, 30)
	want := harness.TableState(t, srv, db, "expiry_continue", "id", cols...)
	var diff string
	evs := col.WaitFor(t, 60*time.Second, "the changes after the gap", func(evs []harness.Event) bool {
		got, err := harness.ReplayOnto(before, evs, "id")
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		diff = harness.Diff(want, got)
		return diff == ""
	})
	if n := harness.DuplicatePositions(evs); n != 0 {
		t.Fatalf("%d positions delivered twice", n)
	}
	if n := m.Counter("doris_binlog_expired_gaps_total"); n != 1 {
		t.Fatalf("doris_binlog_expired_gaps_total = %d, want 1", n)
	}
}

// TestExpiredWindowFail is the same with binlog_on_expired fail: the stream
// delivers nothing and its checkpoint stays at the expired window's start.
func TestExpiredWindowFail(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	began := time.Now()
	start, w := expiredStart(t, srv, "expiry_fail")
	dir := t.TempDir()
	f := newFixture(t, srv, "expiry_fail", w, &harness.Collector{})
	logs, m, col := f.logs, &harness.MetricsCapture{}, f.col
	in := harness.InputYAML(srv, db+".expiry_fail", "scan_mode: from-timestamp", "scan_timestamp: \""+start+"\"",
		"batch_size: 50", "binlog_on_expired: fail")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(dir), Logs: logs, Metrics: m}, col)
	assertGapLogged(t, logs, time.Since(began))
	if err := w.Insert(ctxTimeout(t, time.Minute), 10); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // several poll intervals: nothing may be read
	if evs := col.Events(); len(evs) != 0 {
		t.Fatalf("binlog_on_expired fail still delivered %d events, first %+v", len(evs), evs[0])
	}
	if n := m.Counter("doris_binlog_expired_gaps_total"); n < 1 {
		t.Fatalf("doris_binlog_expired_gaps_total = %d, want >= 1", n)
	}
	_ = r.Stop(10 * time.Second)
	b, err := os.ReadFile(filepath.Join(dir, harness.CheckpointKey(db, "expiry_fail")))
	if err != nil {
		t.Fatalf("reading the checkpoint: %v", err)
	}
	st, err := checkpoint.Decode(b)
	if err != nil {
		t.Fatalf("decoding the checkpoint: %v", err)
	}
	if ts := st.Tables[db+".expiry_fail"]; ts == nil || ts.Phase != "binlog" || st.Stream == nil || st.Stream.Start.String() != start || st.Stream.Last != nil {
		t.Fatalf("checkpoint moved past the expired window: %+v, want window start %s", st, start)
	}
}

// TestExpiredCatchUpWindow resumes a table that was still catching up on its
// own binlog, from a start whose changes have expired since: the catch-up
// read is checked against binlog.ttl_seconds like a window of the shared
// chain, so the gap is logged and counted instead of Doris silently starting
// at its first retained change.
func TestExpiredCatchUpWindow(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	began := time.Now()
	start, w := expiredStart(t, srv, "expiry_catchup")
	key := db + ".expiry_catchup"
	dir := t.TempDir()
	writeCatchUpCheckpoint(t, srv, dir, harness.CheckpointKey(db, "expiry_catchup"), key, start)
	f := newFixture(t, srv, "expiry_catchup", w, &harness.Collector{})
	m := &harness.MetricsCapture{}
	in := harness.InputYAML(srv, key, "scan_mode: latest", "batch_size: 50")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(dir), Logs: f.logs, Metrics: m}, f.col)
	assertGapLogged(t, f.logs, time.Since(began))
	if line := f.logs.Lines(slog.LevelError, "seconds of changes")[0].Text; !strings.Contains(line, key) {
		t.Fatalf("expiry error does not name %s: %s", key, line)
	}
	if n := m.Counter("doris_binlog_expired_gaps_total"); n != 1 {
		t.Fatalf("doris_binlog_expired_gaps_total = %d, want 1", n)
	}
}

// writeCatchUpCheckpoint stores, in a file cache at dir under cacheKey, a
// checkpoint whose table key is still catching up from start while the
// shared chain is at the simulator's current time.
func writeCatchUpCheckpoint(t *testing.T, srv *dorissim.Server, dir, cacheKey, key, start string) {
	t.Helper()
	now, err := checkpoint.ParseBound(harness.Now(t, srv)) // the simulator's zone is UTC
	if err != nil {
		t.Fatal(err)
	}
	from, err := checkpoint.ParseBound(start)
	if err != nil {
		t.Fatal(err)
	}
	st := checkpoint.New()
	st.Stream = &checkpoint.Window{Start: now}
	st.Tables[key] = &checkpoint.Table{Phase: checkpoint.PhaseCatchUp, Start: from, CatchUp: &checkpoint.Window{Start: from}}
	b, err := checkpoint.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, cacheKey), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
