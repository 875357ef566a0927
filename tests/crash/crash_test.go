// Package crash kills the rpconnect-doris binary with SIGKILL at random
// points while a seeded workload changes several tables in dorissim, restarts
// it on the same `file` checkpoint cache each time, and checks that the
// output of all runs replays to the final tables with no binlog position
// lost and no more duplicates than were in flight at the kills.
//
// The short form runs in `make test`; CRASH_LONG=1 (`make crash`) kills at
// least 10 times. CRASH_SEED replays a logged seed.
package crash

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

func crashShape() shape {
	if os.Getenv("CRASH_LONG") != "" {
		return shape{long: true, tables: 3, rowsPerTable: 2000, buckets: 8, kills: 12, maxSteps: 6000, pause: 15 * time.Millisecond}
	}
	return shape{tables: 3, rowsPerTable: 300, buckets: 8, kills: 3, maxSteps: 600, pause: 20 * time.Millisecond}
}

func TestCrash(t *testing.T) {
	sh := crashShape()
	sd := seed(t)
	t.Logf("crash: seed %d (CRASH_SEED=%d replays it), %d tables of %d rows, %d kills", sd, sd, sh.tables, sh.rowsPerTable, sh.kills)
	s := newSuite(t, sh, sd)

	w := newWriter(s.loads, sd^0xdecafbad, sh.pause)
	w.start(sh.maxSteps)
	t.Cleanup(func() { _, _ = w.stop() })

	for k := range sh.kills {
		r := s.start()
		s.waitKillPoint(r, k, sh)
		s.killRun(r)
	}
	if s.killedInSnapshot() == 0 {
		t.Errorf("no kill landed while a table was in its snapshot phase; the snapshot needs more rows or buckets")
	}

	final := s.start()
	// Let the writer run on for a moment against the final run, then stop it
	// so that the output can catch up with a table that no longer changes.
	time.Sleep(time.Duration(1000+s.rng.IntN(2000)) * time.Millisecond)
	steps, err := w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}
	s.catchUp(final, 2*time.Minute)
	s.finish(final)

	f := s.verify()
	s.checkOracle()
	line := fmt.Sprintf("crash: kills=%d events=%d lost=%d duplicates=%d bound=%d", sh.kills, f.events, f.lost, f.duplicates(), f.bound)
	t.Logf("%s (workload steps %d, kills mid-snapshot %d; bound = per kill and table checkpoint_limit %d, plus %d in-progress tablets while in the snapshot)",
		line, steps, s.killedInSnapshot(), s.pc.checkpointLimit, s.pc.parallelSplits)
	fmt.Println(line)
}

// waitKillPoint waits for a random kill point. The first kill (the first
// three in the long form) comes after a few lines, so that it lands
// mid-snapshot while the snapshot lasts. The others wait for the
// binlog phase of every table first (always in the short form, in half the
// cases in the long one, whose other kills may land anywhere), then either
// for a random number of lines (mid-window) or a random time (which often
// falls between windows, as the input polls every second).
func (s *suite) waitKillPoint(r *run, k int, sh shape) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	early := k == 0 || (sh.long && k < 3)
	if !early && (!sh.long || s.rng.IntN(2) == 0) {
		s.waitStreaming(r)
	}
	switch {
	case early:
		r.waitLines(ctx, 1+s.rng.IntN(sh.rowsPerTable))
	case s.rng.IntN(2) == 0:
		// Each run writes its own file, so this counts only its lines.
		r.waitLines(ctx, 1+s.rng.IntN(4*s.pc.batchSize))
	default:
		d := time.Duration(300+s.rng.IntN(3700)) * time.Millisecond
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}

// waitStreaming waits (bounded) until every table's stored checkpoint is in
// the binlog phase.
func (s *suite) waitStreaming(r *run) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		streaming := true
		for _, tbl := range s.pc.tables {
			if st := storedState(s.pc.cacheDir(), db, tbl); phaseOf(st, tbl) != checkpoint.PhaseBinlog {
				streaming = false
			}
		}
		if streaming {
			return
		}
		if r.exited() {
			s.t.Fatalf("run %d exited (%v)\n%s", r.no, r.waitErr, r.logTail())
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("run %d: not every table reached the binlog phase within 60s\n%s", r.no, r.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
