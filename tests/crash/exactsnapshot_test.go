package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// An initial snapshot read as of one commit TSO (issue 34) across SIGKILL:
// a split the kill interrupted is read again as of the same TSO, and the
// binlog after it still starts right after that TSO.

// exactConfig is a run following db.table in initial mode, split by split
// and through a slow pipeline, so that a kill lands in the middle of the
// snapshot with part of it acknowledged.
func exactConfig(srv *dorissim.Server, table, cacheDir, outPath string, slow bool) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: DEBUG\n  format: logfmt\nshutdown_timeout: 30s\n")
	fmt.Fprintf(&b, `input:
  doris_binlog:
    fenodes: %s
    table_identifier: %s.%s
    username: root
    password: ""
    binlog_poll_interval: 1s
    checkpoint_cache: cp
    checkpoint_cache_key: %s
    scan_mode: initial
    batch_size: 20
    checkpoint_limit: 40
    max_parallel_snapshot_splits: 1
    request_tablet_size: 1
    snapshot_query_rows: 0
    debug_metadata: true
`, srv.HTTPAddr(), db, table, checkpointKey)
	b.WriteString("pipeline:\n  threads: 1\n  processors:\n")
	if slow {
		b.WriteString("    - sleep:\n        duration: 20ms\n")
	}
	b.WriteString("    - mapping: 'root = {\"meta\": @, \"row\": this}'\n")
	fmt.Fprintf(&b, "output:\n  file:\n    path: %q\n    codec: lines\n", outPath)
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}

// exactRun starts run no of the binary on the exact-snapshot config.
func exactRun(t *testing.T, srv *dorissim.Server, dir, table string, no int, slow bool) *run {
	t.Helper()
	r := &run{
		no:      no,
		outPath: filepath.Join(dir, fmt.Sprintf("out-%02d.jsonl", no)),
		logPath: filepath.Join(dir, fmt.Sprintf("run-%02d.log", no)),
		done:    make(chan struct{}),
	}
	if err := os.MkdirAll(filepath.Join(dir, "cp"), 0o755); err != nil {
		t.Fatal(err)
	}
	confPath := filepath.Join(dir, configName(no))
	if err := os.WriteFile(confPath, []byte(exactConfig(srv, table, filepath.Join(dir, "cp"), r.outPath, slow)), 0o600); err != nil {
		t.Fatal(err)
	}
	r.launch(t, confPath, dir)
	return r
}

// killInSnapshot waits for some of run r's output and SIGKILLs it while
// the stored checkpoint still has the table in its snapshot, with part of
// it done.
func killInSnapshot(t *testing.T, r *run, cacheDir, table string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !r.waitLines(ctx, 20) {
		t.Fatalf("run %d wrote no snapshot rows\n%s", r.no, r.logTail())
	}
	for {
		var e *checkpoint.Table
		if st := storedState(cacheDir); st != nil {
			e = st.Tables[qualified(table)]
		}
		if e != nil && e.Phase != checkpoint.PhaseSnapshot {
			t.Fatalf("run %d finished the snapshot before the kill (phase %s, %d lines): slow it down\n%s", r.no, e.Phase, r.lineCount(), r.logTail())
		}
		if e != nil && len(e.DoneTablets) > 0 {
			if storedSnapshotTSO(t, cacheDir, table) == 0 {
				t.Errorf("the checkpoint of a snapshot in progress holds no snapshot_tso: %+v", e)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no snapshot tablet was stored as done (stored: %+v, %d lines)\n%s", storedState(cacheDir), r.lineCount(), r.logTail())
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.kill(t)
}

// storedSnapshotTSO is the snapshot_tso the stored checkpoint holds for
// table, 0 for none (read from the JSON, as any reader of the file would).
func storedSnapshotTSO(t *testing.T, cacheDir, table string) int64 {
	t.Helper()
	st := storedState(cacheDir)
	if st == nil {
		return 0
	}
	b, err := checkpoint.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Tables map[string]struct {
			SnapshotTSO int64 `json:"snapshot_tso"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return raw.Tables[qualified(table)].SnapshotTSO
}

// outputs reads the output of every run in order.
func outputs(t *testing.T, runs []*run, killed []bool) []harness.Event {
	t.Helper()
	var all []harness.Event
	for i, r := range runs {
		evs, _, err := readOutput(r.outPath, killed[i])
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, evs...)
	}
	return all
}

// TestCrashExactSnapshotMergeOnWrite changes a merge-on-write table with
// historical values while its initial snapshot is read, kills the binary
// in the middle of the snapshot and again in its first windows, and checks
// with a strict consumer (which skips only what a kill made the input send
// again) that every change came once, in the snapshot or the binlog.
func TestCrashExactSnapshotMergeOnWrite(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "exact", harness.TableOpts{Buckets: 8})
	w := harness.NewWorkload(srv, db, "exact", 34)
	if err := w.Insert(ctxFor(t, 30*time.Second), 3000); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // committed before the second the snapshot is read as of
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")

	stopChanges := harness.ChangeLoop(t, 3*time.Minute, 5*time.Millisecond, w.Step)
	r1 := exactRun(t, srv, dir, "exact", 1, true)
	killInSnapshot(t, r1, cacheDir, "exact")
	asOf := storedSnapshotTSO(t, cacheDir, "exact")

	r2 := exactRun(t, srv, dir, "exact", 2, false)
	r2.waitLog(t, time.Minute, "Snapshot of "+qualified("exact")+" finished")
	r2.waitLog(t, time.Minute, "Reading binlog window [")
	if x := storedSnapshotTSO(t, cacheDir, "exact"); x != 0 && x != asOf {
		t.Fatalf("the restarted snapshot reads as of %d, the first run as of %d", x, asOf)
	}
	r2.kill(t)
	n := stopChanges()
	t.Logf("%d changes made across the kills; snapshot as of %d", n, asOf)

	r3 := exactRun(t, srv, dir, "exact", 3, false)
	want := harness.TableState(t, srv, db, "exact", "id", "id", "name", "qty", "amount")
	runs, killed := []*run{r1, r2, r3}, []bool{true, true, false}
	deadline := time.Now().Add(time.Minute)
	var c *harness.StrictConsumer
	for {
		c = harness.NewStrictConsumer("id")
		c.AllowRedelivery = true
		c.ApplyAll(outputs(t, runs, killed))
		if harness.Diff(want, c.Rows) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the output does not reach the table's state: %s\n%s", harness.Diff(want, c.Rows), r3.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(c.Violations) > 0 {
		t.Fatalf("%d events a strict consumer cannot apply, the first: %s", len(c.Violations), strings.Join(c.Violations[:min(len(c.Violations), 5)], "\n"))
	}
	t.Logf("%d events sent again after the kills (at most checkpoint_limit per kill)", c.Redelivered)
	if c.Redelivered > 2*40 {
		t.Fatalf("%d events were sent again, more than checkpoint_limit (40) per kill", c.Redelivered)
	}
}

// TestCrashSnapshotPastTheTTLStops kills the binary in the middle of a
// merge-on-write table's snapshot and restarts it after binlog.ttl_seconds
// has passed the snapshot's TSO: the rest cannot be read as of that TSO
// any more, and the input must stop loudly, naming the table and the TTL,
// instead of reading the rest at another version.
func TestCrashSnapshotPastTheTTLStops(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "ttl", harness.TableOpts{Buckets: 8, TTLSeconds: 3})
	w := harness.NewWorkload(srv, db, "ttl", 35)
	if err := w.Insert(ctxFor(t, 30*time.Second), 3000); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // committed before the second the snapshot is read as of
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	r1 := exactRun(t, srv, dir, "ttl", 1, true)
	killInSnapshot(t, r1, cacheDir, "ttl")
	for range 20 { // changes the rest of the snapshot must not show
		if err := w.Step(ctxFor(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(4 * time.Second) // the TTL passes the snapshot's TSO

	r2 := exactRun(t, srv, dir, "ttl", 2, false)
	r2.waitLog(t, time.Minute, "no longer retains")
	line := ""
	for _, l := range strings.Split(r2.log(), "\n") {
		if strings.Contains(l, "no longer retains") {
			line = l
			break
		}
	}
	if !strings.Contains(line, "level=error") || !strings.Contains(line, qualified("ttl")) || !strings.Contains(line, "binlog.ttl_seconds") {
		t.Fatalf("the stop is not an error naming the table and binlog.ttl_seconds: %s", line)
	}
	time.Sleep(2 * time.Second)
	if n := r2.lineCount(); n != 0 {
		t.Fatalf("the resumed snapshot wrote %d rows after its TSO expired", n)
	}
}
