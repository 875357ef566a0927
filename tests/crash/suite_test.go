package crash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const db = "crash"

// shape sizes a crash run.
type shape struct {
	long         bool // CRASH_LONG: kills may land anywhere
	tables       int  // created before the first run
	rowsPerTable int  // pre-loaded into each of them (half that into the late table)
	buckets      int
	kills        int
	maxSteps     int           // workload steps at most
	pause        time.Duration // average pause between steps
	// createWhileDown: the late table is created between two runs
	// instead of while one runs.
	createWhileDown bool
	// dorisCache keeps the checkpoint in the simulator through the doris
	// cache instead of the file cache (see pipelineConf.cacheDB).
	dorisCache bool
}

// suite is one simulator, its tables and workloads, and the runs of the
// binary against them.
type suite struct {
	t     *testing.T
	sh    shape
	seed  uint64
	srv   *dorissim.Server
	pc    *pipelineConf
	rng   *rand.Rand
	obs   *observer
	w     *writer
	loads map[string]*harness.Workload // every table ever created
	order []string                     // their names in creation order
	live  []string                     // the tables that exist now
	late  string                       // the table created mid-run, if any
	gone  map[string]*droppedTable     // tables dropped mid-run
	runs  []*run
	segs  [][]harness.Event // the lines of each finished run
	kills []killInfo
}

// seed is CRASH_SEED when set, else the clock; the test logs it so that a
// failure can be replayed.
func seed(t *testing.T) uint64 {
	if s := os.Getenv("CRASH_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CRASH_SEED=%q: %v", s, err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

// newSuite starts the simulator, creates and fills the first tables and
// prepares the pipeline config and the writer (not started).
func newSuite(t *testing.T, sh shape, sd uint64) *suite {
	t.Helper()
	s := &suite{t: t, sh: sh, seed: sd, rng: rand.New(rand.NewPCG(sd, sd^0x5bd1e995)),
		loads: map[string]*harness.Workload{}, gone: map[string]*droppedTable{}}
	s.srv = harness.StartSim(t, dorissim.Config{})
	s.pc = &pipelineConf{srv: s.srv, dir: t.TempDir(), batchSize: 50, checkpointLimit: 200, parallelSplits: 2, parallelTables: 2}
	if sh.dorisCache {
		s.pc.useDorisCache(t, s.srv)
	}
	for range sh.tables {
		s.createTable(sh.rowsPerTable)
	}
	// Committed in a Doris second that has passed when the first run
	// starts: an initial snapshot holds what was committed before the
	// current second, so these rows are snapshot rows.
	time.Sleep(1100 * time.Millisecond)
	var loads []*harness.Workload
	for _, tbl := range s.live {
		loads = append(loads, s.loads[tbl])
	}
	w, err := newWriter(s.srv, loads, sd^0xdecafbad, sh.pause)
	if err != nil {
		t.Fatal(err)
	}
	s.w = w
	t.Cleanup(func() { _, _ = s.w.stop() })
	s.obs = startObserver(s.pc.state)
	t.Cleanup(s.obs.close)
	t.Cleanup(func() {
		if keep := os.Getenv("CRASH_KEEP_DIR"); keep != "" {
			// Configs, logs, outputs and checkpoints, for a look after the run.
			if err := os.CopyFS(filepath.Join(keep, t.Name()), os.DirFS(s.pc.dir)); err != nil {
				t.Logf("CRASH_KEEP_DIR: %v", err)
			}
		}
		if t.Failed() {
			for _, r := range s.runs {
				t.Log(r.logTail())
			}
		}
	})
	return s
}

// createTable creates the next table t<n> and loads rows into it.
func (s *suite) createTable(rows int) string {
	s.t.Helper()
	tbl := fmt.Sprintf("t%d", len(s.order)+1)
	harness.CreateTable(s.t, s.srv, db, tbl, harness.TableOpts{Buckets: s.sh.buckets})
	wl := harness.NewWorkload(s.srv, db, tbl, s.seed+uint64(len(s.order))+1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for left := rows; left > 0; left -= 100 {
		if err := wl.Insert(ctx, min(left, 100)); err != nil {
			s.t.Fatalf("loading %s.%s: %v", db, tbl, err)
		}
	}
	s.loads[tbl] = wl
	s.order = append(s.order, tbl)
	s.live = append(s.live, tbl)
	return tbl
}

// start starts the next run.
func (s *suite) start() *run {
	r := startRun(s.t, s.pc, len(s.runs)+1)
	s.runs = append(s.runs, r)
	return r
}

// killRun kills r, notes which tables the stored checkpoint had in their
// snapshot at that moment, and keeps the lines r wrote.
func (s *suite) killRun(r *run) {
	s.t.Helper()
	r.kill(s.t)
	s.obs.observe()
	st := s.pc.state()
	k := killInfo{run: r.no}
	var phases []string
	for _, tbl := range s.live {
		phase := phaseOf(st, tbl)
		// A table not stored yet (created, its entry not yet committed)
		// starts its snapshot again from nothing, like one mid-snapshot.
		if phase == checkpoint.PhaseSnapshot || phase == phaseNone {
			k.snapshotting = append(k.snapshotting, tbl)
		}
		phases = append(phases, tbl+"="+phase)
	}
	s.kills = append(s.kills, k)
	evs, torn, err := readOutput(r.outPath, true)
	if err != nil {
		s.t.Fatalf("run %d: %v", r.no, err)
	}
	s.segs = append(s.segs, evs)
	s.t.Logf("killed run %d after %d lines (torn last line: %v), stored phases %v", r.no, len(evs), torn, phases)
}

// killedInSnapshot counts kills that left at least one table mid-snapshot.
func (s *suite) killedInSnapshot() int {
	n := 0
	for _, k := range s.kills {
		if len(k.snapshotting) > 0 {
			n++
		}
	}
	return n
}

// allEvents is every line of the finished runs, plus those of r so far
// when r is not nil.
func (s *suite) allEvents(r *run) []harness.Event {
	s.t.Helper()
	var all []harness.Event
	for _, seg := range s.segs {
		all = append(all, seg...)
	}
	if r != nil {
		evs, _, err := readOutput(r.outPath, true)
		if err != nil {
			s.t.Fatalf("run %d: %v", r.no, err)
		}
		all = append(all, evs...)
	}
	return all
}

// catchUp waits (bounded) until replaying every line written so far gives
// each live table as the simulator holds it, with the writer stopped.
func (s *suite) catchUp(r *run, timeout time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		all := byTable(s.allEvents(r))
		diff := ""
		for _, tbl := range s.live {
			if d := replayDiff(s.t, s.srv, db, tbl, all[tbl]); d != "" {
				diff = tbl + ": " + d
				break
			}
		}
		if diff == "" {
			return
		}
		if r.exited() {
			s.t.Fatalf("run %d exited early (%v)\n%s", r.no, r.waitErr, r.logTail())
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the output did not catch up with the tables within %s:\n%s", timeout, diff)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// finish stops r with SIGTERM, which must exit 0, and keeps its lines.
func (s *suite) finish(r *run) {
	s.t.Helper()
	if code := r.terminate(s.t, 60*time.Second); code != 0 {
		s.t.Fatalf("run %d exited with %d after SIGTERM\n%s", r.no, code, r.logTail())
	}
	evs, _, err := readOutput(r.outPath, false)
	if err != nil {
		s.t.Fatalf("run %d: %v", r.no, err)
	}
	s.segs = append(s.segs, evs)
}

// waitStored waits (bounded) until the stored checkpoint satisfies ready.
func (s *suite) waitStored(r *run, timeout time.Duration, what string, ready func(*checkpoint.State) bool) *checkpoint.State {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if st := s.pc.state(); st != nil && ready(st) {
			return st
		}
		if r.exited() {
			s.t.Fatalf("run %d exited (%v) while waiting for %s\n%s", r.no, r.waitErr, what, r.logTail())
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("run %d: the stored checkpoint did not reach %s within %s: %s\n%s",
				r.no, what, timeout, describe(s.pc.state()), r.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStreaming waits (bounded) until every live table's stored entry is in
// the binlog phase.
func (s *suite) waitStreaming(r *run) {
	s.t.Helper()
	s.waitStored(r, 60*time.Second, "the binlog phase of every table", func(st *checkpoint.State) bool {
		for _, tbl := range s.live {
			if phaseOf(st, tbl) != checkpoint.PhaseBinlog {
				return false
			}
		}
		return true
	})
}

// createLate creates a table once r has entered its binlog phase, and
// waits (bounded) until table discovery has stored it.
func (s *suite) createLate(r *run) {
	s.t.Helper()
	r.waitLog(s.t, 60*time.Second, "Binlog phase: reading")
	tbl := s.addLateTable()
	st := s.waitStored(r, 30*time.Second, tbl+" in the checkpoint", func(st *checkpoint.State) bool { return phaseOf(st, tbl) != phaseNone })
	s.t.Logf("run %d: created %s.%s; discovery stored it as %s", r.no, db, tbl, phaseOf(st, tbl))
}

// addLateTable creates the late table, loads it and adds it to the
// workload.
func (s *suite) addLateTable() string {
	s.t.Helper()
	tbl := s.createTable(s.sh.rowsPerTable / 2)
	s.late = tbl
	s.w.add(s.loads[tbl])
	return tbl
}

func describe(st *checkpoint.State) string {
	b, err := checkpoint.Encode(st)
	if err != nil {
		return fmt.Sprint(err)
	}
	return string(b)
}
