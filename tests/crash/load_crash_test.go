package crash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The load crash suite: rpconnect-doris with doris_binlog -> doris_load is
// SIGKILLed at random points while a workload changes lc.src. Afterwards
// the UNIQUE target lc_t.src equals the source, and the DUPLICATE KEY
// target lc_t.changes holds every binlog change of the source exactly once.
const (
	lcDB     = "lc"
	lcTarget = "lc_t"
)

type loadCrashShape struct {
	rows, kills, maxSteps int
	pause                 time.Duration
}

func loadCrashShapeFor() loadCrashShape {
	if os.Getenv("CRASH_LONG") != "" {
		return loadCrashShape{rows: 1000, kills: 12, maxSteps: 5000, pause: 15 * time.Millisecond}
	}
	return loadCrashShape{rows: 200, kills: 3, maxSteps: 600, pause: 20 * time.Millisecond}
}

func TestCrashLoad(t *testing.T) {
	sh := loadCrashShapeFor()
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, sd^0x1f2e3d4c))
	t.Logf("load-crash: seed %d (CRASH_SEED=%d replays it), %d rows, %d kills", sd, sd, sh.rows, sh.kills)
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, lcDB, "src", harness.TableOpts{Buckets: 4})
	harness.CreateTable(t, srv, lcTarget, "src", harness.TableOpts{NoBinlog: true})
	harness.Exec(t, srv, "CREATE TABLE `"+lcTarget+"`.`changes` (`tso` BIGINT NOT NULL, `lsn` BIGINT NOT NULL, `op` VARCHAR(16) NOT NULL, "+
		"`id` BIGINT, `name` VARCHAR(64), `qty` INT, `amount` DECIMAL(10, 2)) DUPLICATE KEY(`tso`, `lsn`) "+
		"DISTRIBUTED BY HASH(`tso`) BUCKETS 4 PROPERTIES (\"replication_num\" = \"1\")")
	wl := harness.NewWorkload(srv, lcDB, "src", sd+7)
	if err := wl.Insert(ctxFor(t, time.Minute), sh.rows); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	conf := loadCrashConfig(srv, cacheDir)
	start := runLauncher(t, dir, cacheDir, conf)

	// The writer starts once the binlog's stream start has passed, so that
	// every change it makes is a binlog change, counted below.
	first := start()
	streamStart := waitLoadStreaming(t, first, cacheDir)
	waitPast(t, srv, streamStart)
	w, err := newWriter(srv, []*harness.Workload{wl}, sd^0xabad1dea, sh.pause)
	if err != nil {
		t.Fatal(err)
	}
	w.start(sh.maxSteps)
	t.Cleanup(func() { _, _ = w.stop() })

	for k := range sh.kills {
		r := first
		if k > 0 {
			r = start()
		}
		time.Sleep(time.Duration(300+rng.IntN(3000)) * time.Millisecond)
		r.kill(t)
		t.Logf("killed run %d", r.no)
	}
	final := start()
	time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
	steps, err := w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}

	time.Sleep(1100 * time.Millisecond) // the last change's second is over
	changes := sourceChanges(t, srv, streamStart, harness.Now(t, srv))
	want := harness.TableState(t, srv, lcDB, "src", "id", columns...)
	deadline := time.Now().Add(2 * time.Minute)
	var diff string
	var got []changeRow
	for {
		diff = harness.Diff(want, harness.TableState(t, srv, lcTarget, "src", "id", columns...))
		got = targetChanges(t, srv)
		if diff == "" && len(got) >= len(changes) {
			break
		}
		if final.exited() {
			t.Fatalf("the final run exited early (%v)", final.waitErr)
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if code := final.terminate(t, 60*time.Second); code != 0 {
		t.Errorf("the final run exited with %d after SIGTERM", code)
	}

	dups, lost, extra := compareChanges(changes, got)
	line := fmt.Sprintf("load-crash: kills=%d changes=%d target_rows=%d duplicates=%d lost=%d", sh.kills, len(changes), len(got), dups, lost)
	t.Logf("%s (workload steps %d)", line, steps)
	fmt.Println(line)
	if diff != "" {
		t.Errorf("the UNIQUE target differs from the source:\n%s", diff)
	}
	if dups != 0 || lost != 0 || extra != 0 {
		t.Errorf("the DUPLICATE KEY target holds %d duplicate, %d lost and %d unknown changes", dups, lost, extra)
	}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// loadCrashConfig fans the changes of lc.src out to both targets. The
// changes branch turns every binlog change into an appended row that keeps
// its position, and drops snapshot rows.
func loadCrashConfig(srv *dorissim.Server, cacheDir string) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\nshutdown_timeout: 30s\n")
	b.WriteString("input:\n")
	in := harness.InputYAML(srv, lcDB+".src", "scan_mode: initial", "batch_size: 50", "checkpoint_limit: 200", "request_tablet_size: 1", "snapshot_query_rows: 0")
	harness.Indent(&b, in)
	// One pipeline thread: several would reorder batches, and a change
	// loaded before an older one would be overwritten by it.
	b.WriteString("pipeline:\n  threads: 1\n")
	load := func(table string) string {
		return fmt.Sprintf("doris_load:\n  fenodes: %s\n  username: root\n  password: \"\"\n  table_identifier: %s.%s\n  request_read_timeout: 30s\n", srv.HTTPAddr(), lcTarget, table)
	}
	b.WriteString("output:\n  broker:\n    pattern: fan_out\n    outputs:\n")
	for _, o := range []string{load("src"), load("changes") + `processors:
  - mapping: |
      let op = @operation
      meta operation = "insert"
      root = if $op == "read" { deleted() } else { this.merge({"tso": @tso, "lsn": @lsn, "op": $op}) }
`} {
		for j, line := range strings.Split(strings.TrimRight(o, "\n"), "\n") {
			prefix := "        "
			if j == 0 {
				prefix = "      - "
			}
			b.WriteString(prefix + line + "\n")
		}
	}
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}

// startLoadRun starts the binary on conf; stdout and stderr go to the run's
// log. The child is killed at cleanup.
func startLoadRun(t *testing.T, dir, cacheDir string, no int, conf string) *run {
	t.Helper()
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &run{no: no, logPath: filepath.Join(dir, fmt.Sprintf("load-run-%02d.log", no)), done: make(chan struct{})}
	confPath := filepath.Join(dir, "load.yaml")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	r.launch(t, confPath, dir)
	return r
}

// waitLoadStreaming waits for the stored checkpoint to reach the binlog
// phase and returns the start of its current window: nothing changes the
// source before the writer starts, so every later change is a binlog change.
func waitLoadStreaming(t *testing.T, r *run, cacheDir string) string {
	t.Helper()
	return waitStreaming(t, r, filepath.Join(cacheDir, checkpoint.TableKey(lcDB, "src")), func(st *checkpoint.State) bool {
		return st.Tables[lcDB+".src"] != nil && st.Tables[lcDB+".src"].Phase == checkpoint.PhaseBinlog
	})
}

// waitStreaming waits until the checkpoint file at path has a stream start
// and ready holds for it, and returns the start; a run that exits first
// fails the test.
func waitStreaming(t *testing.T, r *run, path string, ready func(*checkpoint.State) bool) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, _ := readCopy(path)
		if st != nil && st.Stream != nil && !st.Stream.Start.IsZero() && ready(st) {
			return st.Stream.Start.String()
		}
		if r.exited() {
			t.Fatalf("run %d exited: %v", r.no, r.waitErr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the input did not reach the binlog phase of every table within 60s")
	return ""
}

// runLauncher starts the numbered runs of one crash test, all with conf
// and one checkpoint directory; a failed test prints each run's log tail.
func runLauncher(t *testing.T, dir, cacheDir, conf string) func() *run {
	var runs []*run
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range runs {
				t.Log(r.logTail())
			}
		}
	})
	return func() *run {
		r := startLoadRun(t, dir, cacheDir, len(runs)+1, conf)
		runs = append(runs, r)
		return r
	}
}

// waitPast waits until the simulator's clock is past ts (to the second).
func waitPast(t *testing.T, srv *dorissim.Server, ts string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for harness.Now(t, srv) <= ts {
		if time.Now().After(deadline) {
			t.Fatalf("the simulator clock did not pass %s", ts)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type changeRow struct {
	tso, lsn int64
	op       string
}

var opName = map[int64]string{int64(storage.OpAppend): "insert", int64(storage.OpDelete): "delete", int64(storage.OpUpdateBefore): "update_before", int64(storage.OpUpdateAfter): "update_after"}

// sourceChanges reads every binlog change of lc.src in [from, to).
func sourceChanges(t *testing.T, srv *dorissim.Server, from, to string) []changeRow {
	t.Helper()
	return tableChanges(t, srv, lcDB, "src", from, to)
}

// tableChanges reads every binlog change of db.table in [from, to) with an
// @incr query, as the input reads its windows.
func tableChanges(t *testing.T, srv *dorissim.Server, db, table, from, to string) []changeRow {
	t.Helper()
	res, err := srv.Query(ctxFor(t, time.Minute), "SELECT `__DORIS_BINLOG_TSO__`, `__DORIS_BINLOG_LSN__`, `__DORIS_BINLOG_OP__` FROM `"+db+
		"`.`"+table+"`@incr('startTimestamp' = '"+from+"', 'endTimestamp' = '"+to+"', 'incrementType' = 'DETAIL')")
	if err != nil {
		t.Fatalf("reading the binlog of %s.%s: %v", db, table, err)
	}
	out := make([]changeRow, 0, len(res))
	for _, r := range res {
		out = append(out, changeRow{tso: toInt(r[0]), lsn: toInt(r[1]), op: opName[toInt(r[2])]})
	}
	return out
}

func targetChanges(t *testing.T, srv *dorissim.Server) []changeRow {
	t.Helper()
	return changesIn(t, srv, lcTarget)
}

// changesIn reads the changes table of database db, which doris_load fills
// with each change's tso, lsn and operation.
func changesIn(t *testing.T, srv *dorissim.Server, db string) []changeRow {
	t.Helper()
	res, err := srv.Query(ctxFor(t, time.Minute), "SELECT `tso`, `lsn`, `op` FROM `"+db+"`.`changes`")
	if err != nil {
		t.Fatalf("reading the changes target: %v", err)
	}
	out := make([]changeRow, 0, len(res))
	for _, r := range res {
		out = append(out, changeRow{tso: toInt(r[0]), lsn: toInt(r[1]), op: fmt.Sprint(r[2])})
	}
	return out
}

func toInt(v any) int64 {
	var n int64
	fmt.Sscan(fmt.Sprint(v), &n)
	return n
}

// compareChanges counts target rows beyond the first per position, source
// changes missing from the target, and target rows the source never had.
func compareChanges(src, dst []changeRow) (dups, lost, extra int) {
	want := map[changeRow]bool{}
	for _, c := range src {
		want[c] = true
	}
	seen := map[changeRow]int{}
	for _, c := range dst {
		seen[c]++
		if seen[c] > 1 {
			dups++
		}
		if !want[c] && seen[c] == 1 {
			extra++
		}
	}
	for c := range want {
		if seen[c] == 0 {
			lost++
		}
	}
	return dups, lost, extra
}
