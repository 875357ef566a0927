package crash

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const (
	scDB = "sigcrash"
	// The signal table's name sorts before the data tables', so that in
	// one transaction its row comes first and the rows after it hold the
	// signal noted, not yet applied, for as long as they take to deliver.
	scSignals  = "_signals"
	scSignalID = "resnap-crash"
	scLimit    = 50 // checkpoint_limit
)

// TestCrashSignalResnapshot kills the binary twice while an execute-snapshot
// signal re-snapshots one of two tables under a running workload: first as
// soon as the checkpoint holds the signal (noted in its window, or just
// applied), then in the middle of the new snapshot. Each restart resumes the
// re-snapshot where the checkpoint left it: it is neither forgotten nor
// started over, the table rejoins the shared windows, no change of either
// table is lost, and the outputs replay to the final tables.
func TestCrashSignalResnapshot(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, sd^0x5196a1))
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, scDB, "a", harness.TableOpts{Buckets: 4})
	harness.CreateTable(t, srv, scDB, "b", harness.TableOpts{Buckets: 8})
	harness.Exec(t, srv, "CREATE TABLE `"+scDB+"`.`"+scSignals+"` (`id` VARCHAR(64) NOT NULL, `type` VARCHAR(32), `data` STRING) UNIQUE KEY(`id`) "+
		"DISTRIBUTED BY HASH(`id`) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\", \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\")")
	wa := harness.NewWorkload(srv, scDB, "a", sd+1)
	wb := harness.NewWorkload(srv, scDB, "b", sd+2)
	if err := wa.Insert(ctxFor(t, time.Minute), 100); err != nil {
		t.Fatal(err)
	}
	if err := wb.Insert(ctxFor(t, time.Minute), 2000); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	cpPath := filepath.Join(cacheDir, "signal-crash")
	var runs []*run
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range runs {
				t.Log(r.logTail())
			}
		}
	})
	start := func() *run {
		r := startSignalRun(t, srv, dir, cacheDir, len(runs)+1)
		runs = append(runs, r)
		return r
	}

	first := start()
	streamStart := waitStreaming(t, first, cpPath, func(st *checkpoint.State) bool {
		return scPhase(st, "a") == checkpoint.PhaseBinlog && scPhase(st, "b") == checkpoint.PhaseBinlog
	})
	waitPast(t, srv, streamStart)
	w, err := newWriter(srv, []*harness.Workload{wa, wb}, sd^0x51, 15*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	w.start(3000)
	t.Cleanup(func() { _, _ = w.stop() })

	time.Sleep(time.Duration(200+rng.IntN(800)) * time.Millisecond)
	bulk := make([]string, 300)
	for i := range bulk {
		bulk[i] = fmt.Sprintf("(%d, 'bulk', %d, 1.00)", 1_000_000+i, i)
	}
	harness.Tx(t, srv, "INSERT INTO `"+scDB+"`.`"+scSignals+"` (`id`, `type`, `data`) VALUES ('"+scSignalID+"', 'execute-snapshot', '{\"data-collections\": [\""+scDB+".b\"]}')",
		"INSERT INTO `"+scDB+"`.`a` (`id`, `name`, `qty`, `amount`) VALUES "+strings.Join(bulk, ", "))
	// Kill 1: with the signal noted in the checkpoint, not applied yet.
	held := waitCheckpoint(t, first, cpPath, "the signal noted in the checkpoint", func(st *checkpoint.State) bool {
		b := st.Tables[scDB+".b"]
		return b != nil && b.Pending != nil
	})
	first.kill(t)
	t.Logf("killed run 1 with b %s", describeB(held))
	if st, _ := readCopy(cpPath); st != nil {
		held = st
	}

	// Kill 2: in the middle of the new snapshot, some tablets done.
	second := start()
	mid := waitCheckpoint(t, second, cpPath, "the re-snapshot of b part done", func(st *checkpoint.State) bool {
		b := st.Tables[scDB+".b"]
		return b != nil && b.Signal == scSignalID && len(b.DoneTablets) > 0
	})
	time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
	second.kill(t)
	if st, _ := readCopy(cpPath); st != nil {
		mid = st
	}
	t.Logf("killed run 2 with b %s", describeB(mid))
	// Run 2 applied the signal that run 1 had only noted, at the end of
	// the window it resumed.
	if !strings.Contains(second.log(), `Signal \"`+scSignalID+`\" (execute-snapshot): table sigcrash.b leaves the shared binlog windows`) {
		t.Errorf("run 1 was killed with the signal noted, and run 2 did not apply it")
	}

	final := start()
	waitCheckpoint(t, final, cpPath, "b back in the shared windows", func(st *checkpoint.State) bool {
		return scPhase(st, "b") == checkpoint.PhaseBinlog && scPhase(st, "a") == checkpoint.PhaseBinlog
	})
	time.Sleep(time.Duration(500+rng.IntN(1000)) * time.Millisecond)
	steps, err := w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}
	time.Sleep(1100 * time.Millisecond) // the last change's second is over
	end := harness.Now(t, srv)
	want := map[string][]changeRow{"a": tableChanges(t, srv, scDB, "a", streamStart, end), "b": tableChanges(t, srv, scDB, "b", streamStart, end)}
	deadline := time.Now().Add(2 * time.Minute)
	var res signalCrashResult
	for {
		res = readSignalRuns(t, runs)
		if res.covers(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if code := final.terminate(t, 60*time.Second); code != 0 {
		t.Errorf("the final run exited with %d after SIGTERM", code)
	}
	res = readSignalRuns(t, runs)

	for _, tbl := range []string{"a", "b"} {
		lost := 0
		for _, c := range want[tbl] {
			if !res.delivered[tbl][[3]int64{c.tso, c.lsn, opCode[c.op]}] {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%d of %d changes of %s lost", lost, len(want[tbl]), tbl)
		}
		got := res.replay(t, tbl)
		if diff := harness.Diff(harness.TableState(t, srv, scDB, tbl, "id", columns...), got); diff != "" {
			t.Errorf("the outputs do not replay to %s:\n%s", tbl, diff)
		}
	}
	if res.signalRows[3] == 0 {
		t.Errorf("the final run delivered no rows of the signalled snapshot: it was forgotten (per run: %v)", res.signalRows)
	}
	// The final run read only the tablets the killed one had not delivered.
	resumed := fmt.Sprintf("Snapshot of %s.b: 8 splits of 1 tablet(s) at most, %d already done", scDB, len(mid.Tables[scDB+".b"].DoneTablets))
	if !strings.Contains(final.log(), resumed) {
		t.Errorf("the final run did not resume the signalled snapshot where run 2 left it: no line %q", resumed)
	}
	if res.duplicates > 2*scLimit {
		t.Errorf("%d changes delivered twice, more than the %d two kills may repeat", res.duplicates, 2*scLimit)
	}
	if res.signalEvents > 0 {
		t.Errorf("%d rows of the signal table were delivered", res.signalEvents)
	}
	line := fmt.Sprintf("signal-crash: kills=2 changes=%d duplicates=%d signal_rows_per_run=%v", len(want["a"])+len(want["b"]), res.duplicates, res.signalRows)
	t.Logf("%s (workload steps %d)", line, steps)
}

func describeB(st *checkpoint.State) string {
	b := st.Tables[scDB+".b"]
	if b == nil {
		return "absent"
	}
	return fmt.Sprintf("in phase %s (signal %q, pending %+v, %d tablets done)", b.Phase, b.Signal, b.Pending, len(b.DoneTablets))
}

// waitCheckpoint waits (bounded) for the stored checkpoint to satisfy ready.
func waitCheckpoint(t *testing.T, r *run, path, what string, ready func(*checkpoint.State) bool) *checkpoint.State {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if st, _ := readCopy(path); st != nil && ready(st) {
			return st
		}
		if r.exited() {
			t.Fatalf("run %d exited waiting for %s: %v\n%s", r.no, what, r.waitErr, r.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
	st, _ := readCopy(path)
	t.Fatalf("waiting for %s: not there within 60s; the checkpoint has b %s", what, describeB(st))
	return nil
}

// startSignalRun starts run no of the binary, writing its own output file.
func startSignalRun(t *testing.T, srv *dorissim.Server, dir, cacheDir string, no int) *run {
	t.Helper()
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &run{no: no, outPath: filepath.Join(dir, fmt.Sprintf("sig-out-%02d.jsonl", no)), logPath: filepath.Join(dir, fmt.Sprintf("sig-run-%02d.log", no)), done: make(chan struct{})}
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: DEBUG\n  format: logfmt\nshutdown_timeout: 30s\ninput:\n")
	harness.Indent(&b, harness.SelectYAML(srv, "tables: ["+scDB+".a, "+scDB+".b]", "scan_mode: initial", "batch_size: 10",
		fmt.Sprintf("checkpoint_limit: %d", scLimit), "checkpoint_cache_key: signal-crash", "request_tablet_size: 1", "snapshot_query_rows: 0",
		"max_parallel_snapshot_splits: 1", "debug_metadata: true", "signal_table: "+scDB+"."+scSignals))
	// One thread keeps the input's order; the sleep makes the snapshot of b
	// last long enough to be killed in.
	b.WriteString("pipeline:\n  threads: 1\n  processors:\n    - sleep:\n        duration: 1ms\n    - mapping: 'root = {\"meta\": @, \"row\": this}'\n")
	fmt.Fprintf(&b, "output:\n  file:\n    path: %q\n    codec: lines\n", r.outPath)
	b.WriteString(harness.FileCache(cacheDir))
	confPath := filepath.Join(dir, fmt.Sprintf("sig-%02d.yaml", no))
	if err := os.WriteFile(confPath, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r.launch(t, confPath, dir)
	return r
}

// signalCrashResult is what the runs' outputs hold together.
type signalCrashResult struct {
	events       map[string][]harness.Event // per table, in delivery order across runs
	delivered    map[string]map[[3]int64]bool
	duplicates   int
	signalRows   map[int]int // rows with the signal's id, per run
	signalEvents int
}

func readSignalRuns(t *testing.T, runs []*run) signalCrashResult {
	t.Helper()
	res := signalCrashResult{events: map[string][]harness.Event{}, delivered: map[string]map[[3]int64]bool{"a": {}, "b": {}}, signalRows: map[int]int{}}
	for _, r := range runs {
		raw, err := os.ReadFile(r.outPath)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		lines := bytes.Split(raw, []byte{'\n'})
		lines = lines[:len(lines)-1] // a torn last line was never acked
		for _, line := range lines {
			ev, err := parseLine(line)
			if err != nil {
				t.Fatalf("run %d: %v", r.no, err)
			}
			if ev.Table == scSignals {
				res.signalEvents++
				continue
			}
			var ol outputLine
			if err := json.Unmarshal(line, &ol); err != nil {
				t.Fatal(err)
			}
			if ol.Meta["signal_id"] == scSignalID {
				res.signalRows[r.no]++
			}
			res.events[ev.Table] = append(res.events[ev.Table], ev)
			if ev.Phase == "binlog" {
				if res.delivered[ev.Table][ev.Pos()] {
					res.duplicates++
				}
				res.delivered[ev.Table][ev.Pos()] = true
			}
		}
	}
	return res
}

// covers tells whether every change of want was delivered.
func (res signalCrashResult) covers(want map[string][]changeRow) bool {
	for tbl, changes := range want {
		for _, c := range changes {
			if !res.delivered[tbl][[3]int64{c.tso, c.lsn, opCode[c.op]}] {
				return false
			}
		}
	}
	return true
}

// replay applies tbl's events in delivery order; an event delivered again
// after a kill applies again, which leaves the same final rows.
func (res signalCrashResult) replay(t *testing.T, tbl string) map[string]harness.Row {
	t.Helper()
	state := map[string]harness.Row{}
	for _, ev := range res.events[tbl] {
		next, err := harness.ReplayOnto(state, []harness.Event{ev}, "id")
		if err != nil {
			t.Fatalf("replaying %s: %v", tbl, err)
		}
		state = next
	}
	return state
}

// scPhase is the phase of table sigcrash.tbl in st, "" when absent.
func scPhase(st *checkpoint.State, tbl string) string {
	if t := st.Tables[scDB+"."+tbl]; t != nil {
		return t.Phase
	}
	return ""
}
