package crash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
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
	tables       int
	rowsPerTable int // pre-loaded before the first run
	buckets      int
	kills        int
	maxSteps     int           // workload steps at most
	pause        time.Duration // average pause between steps
}

// suite is one simulator, its tables and workloads, and the runs of the
// binary against them.
type suite struct {
	t      *testing.T
	srv    *dorissim.Server
	pc     *pipelineConf
	loads  []*harness.Workload
	rng    *rand.Rand
	obs    *observer
	runs   []*run
	events []harness.Event // lines of the finished runs, in run order
	kills  map[string][]killInfo
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

// newSuite starts the simulator, creates and fills the tables and prepares
// the pipeline config.
func newSuite(t *testing.T, sh shape, sd uint64) *suite {
	t.Helper()
	s := &suite{t: t, rng: rand.New(rand.NewPCG(sd, sd^0x5bd1e995)), kills: map[string][]killInfo{}}
	s.srv = harness.StartSim(t, dorissim.Config{})
	s.pc = &pipelineConf{srv: s.srv, db: db, dir: t.TempDir(), batchSize: 50, checkpointLimit: 200, parallelSplits: 2}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := range sh.tables {
		tbl := fmt.Sprintf("t%d", i+1)
		harness.CreateTable(t, s.srv, db, tbl, harness.TableOpts{Buckets: sh.buckets})
		wl := harness.NewWorkload(s.srv, db, tbl, sd+uint64(i)+1)
		for left := sh.rowsPerTable; left > 0; left -= 100 {
			if err := wl.Insert(ctx, min(left, 100)); err != nil {
				t.Fatalf("loading %s.%s: %v", db, tbl, err)
			}
		}
		s.pc.tables = append(s.pc.tables, tbl)
		s.loads = append(s.loads, wl)
	}
	s.obs = startObserver(s.pc.cacheDir(), db, s.pc.tables)
	t.Cleanup(s.obs.close)
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range s.runs {
				t.Log(r.logTail())
			}
		}
	})
	return s
}

// start starts the next run.
func (s *suite) start() *run {
	r := startRun(s.t, s.pc, len(s.runs)+1)
	s.runs = append(s.runs, r)
	return r
}

// killRun kills r, notes each table's phase as stored at that moment and
// keeps the lines r wrote.
func (s *suite) killRun(r *run) {
	s.t.Helper()
	r.kill(s.t)
	s.obs.observe()
	var phases []string
	for _, tbl := range s.pc.tables {
		st := storedState(s.pc.cacheDir(), db, tbl)
		inSnap := phaseOf(st, tbl) != checkpoint.PhaseBinlog
		s.kills[tbl] = append(s.kills[tbl], killInfo{inSnapshot: inSnap})
		phase := phaseOf(st, tbl)
		phases = append(phases, tbl+"="+phase)
	}
	evs, torn, err := readOutput(r.outPath, true)
	if err != nil {
		s.t.Fatalf("run %d: %v", r.no, err)
	}
	s.events = append(s.events, evs...)
	s.t.Logf("killed run %d after %d lines (torn last line: %v), stored phases %v", r.no, len(evs), torn, phases)
}

// killedInSnapshot counts kills that left at least one table mid-snapshot.
func (s *suite) killedInSnapshot() int {
	n := 0
	for i := range s.runs {
		for _, tbl := range s.pc.tables {
			if ks := s.kills[tbl]; i < len(ks) && ks[i].inSnapshot {
				n++
				break
			}
		}
	}
	return n
}

// catchUp waits (bounded) until replaying every line written so far gives
// each table as the simulator holds it, with the writer stopped.
func (s *suite) catchUp(r *run, timeout time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs, _, err := readOutput(r.outPath, true)
		if err != nil {
			s.t.Fatalf("run %d: %v", r.no, err)
		}
		all := byTable(append(append([]harness.Event(nil), s.events...), evs...))
		diff := ""
		for _, tbl := range s.pc.tables {
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
	s.events = append(s.events, evs...)
}

// verify checks every table and returns the summed figures.
func (s *suite) verify() figures {
	s.t.Helper()
	all := byTable(s.events)
	var sum figures
	for i, tbl := range s.pc.tables {
		if starts := s.obs.streamStarts(tbl); len(starts) > 1 {
			s.t.Errorf("%s.%s: the stored stream start changed across restarts: %v", db, tbl, starts)
		}
		c := s.tableCheck(i, all[tbl])
		f := c.verify(s.t)
		s.t.Logf("%s.%s: events=%d lost=%d duplicates=%d (binlog %d, snapshot %d) bound=%d stream_start=%q",
			db, tbl, f.events, f.lost, f.duplicates(), f.dupBinlog, f.dupSnap, f.bound, c.streamStart)
		sum.add(f)
	}
	return sum
}

// tableCheck prepares the verification of the i-th table over evs.
func (s *suite) tableCheck(i int, evs []harness.Event) *tableCheck {
	tbl := s.pc.tables[i]
	c := &tableCheck{srv: s.srv, db: db, table: tbl, events: evs, kills: s.kills[tbl],
		limit: s.pc.checkpointLimit, parallel: s.pc.parallelSplits, inserted: int(s.loads[i].NextID() - 1)}
	if starts := s.obs.streamStarts(tbl); len(starts) > 0 {
		c.streamStart = starts[len(starts)-1]
	}
	return c
}

// checkOracle proves that the position check can fail: with one binlog line
// taken out of the first table's output, it must report that position lost.
func (s *suite) checkOracle() {
	s.t.Helper()
	evs := byTable(s.events)[s.pc.tables[0]]
	count := map[[3]int64]int{}
	for _, ev := range evs {
		if ev.Phase == "binlog" {
			count[ev.Pos()]++
		}
	}
	for i, ev := range evs {
		if ev.Phase != "binlog" || count[ev.Pos()] != 1 {
			continue
		}
		s.t.Logf("oracle self-check: taking binlog position %v out of %s's output", ev.Pos(), s.pc.tables[0])
		cut := append(append([]harness.Event(nil), evs[:i]...), evs[i+1:]...)
		if lost, _ := s.tableCheck(0, cut).positions(s.t); lost != 1 {
			s.t.Errorf("the oracle found %d lost positions with %v taken out, want 1", lost, ev.Pos())
		}
		return
	}
	s.t.Errorf("no binlog position of %s was delivered exactly once; the oracle check has nothing to take out", s.pc.tables[0])
}
