// Package crash kills the rpconnect-doris binary with SIGKILL at random
// points while a seeded workload changes the tables of one database in
// dorissim, some of its transactions spanning several tables, and restarts
// it on the same `file` checkpoint cache each time. One doris_binlog input
// follows the database by `include`; a table is created and another dropped
// during the run. The suite checks that the output of all runs replays to
// the final tables with no binlog position lost, in the promised order,
// and with no more duplicates than were in flight at the kills.
//
// TestCrashDorisCache repeats the short form with the checkpoint in the
// simulator through the `doris` cache and a new working directory per run.
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

// crashShape is the short form, or the long one with CRASH_LONG.
// CRASH_CREATE_WHILE_DOWN creates the late table between two runs, so that
// it joins when the next run resumes instead of by discovery.
func crashShape() shape {
	sh := shape{tables: 3, rowsPerTable: 300, buckets: 8, kills: 3, maxSteps: 600, pause: 20 * time.Millisecond}
	if os.Getenv("CRASH_LONG") != "" {
		sh = shape{long: true, tables: 3, rowsPerTable: 2000, buckets: 8, kills: 12, maxSteps: 6000, pause: 15 * time.Millisecond}
	}
	sh.createWhileDown = os.Getenv("CRASH_CREATE_WHILE_DOWN") != ""
	return sh
}

// createAt and dropAt are the runs (0-based) during which a table is
// created and one of the first tables is dropped.
func (sh shape) createAt() int { return max(1, sh.kills/3) }
func (sh shape) dropAt() int   { return max(2, 2*sh.kills/3) }

func TestCrash(t *testing.T) {
	runCrash(t, crashShape())
}

// TestCrashDorisCache is the suite with the checkpoint kept in the
// simulator through the doris cache instead of the file cache, every run in
// a new working directory: each restart resumes from the cache table alone.
func TestCrashDorisCache(t *testing.T) {
	sh := crashShape()
	sh.dorisCache = true
	runCrash(t, sh)
}

func runCrash(t *testing.T, sh shape) {
	sd := seed(t)
	t.Logf("crash: seed %d (CRASH_SEED=%d replays it), %d tables of %d rows, %d kills", sd, sd, sh.tables, sh.rowsPerTable, sh.kills)
	s := newSuite(t, sh, sd)
	s.w.start(sh.maxSteps)
	victim := s.order[len(s.order)-1]

	for k := range sh.kills {
		if k == sh.createAt() && sh.createWhileDown {
			s.t.Logf("creating %s while no run is up (CRASH_CREATE_WHILE_DOWN)", s.addLateTable())
		}
		r := s.start()
		switch {
		case k == sh.createAt() && sh.createWhileDown:
			s.waitStored(r, 60*time.Second, s.late+" in the checkpoint", func(st *checkpoint.State) bool { return phaseOf(st, s.late) != phaseNone })
			s.waitKillPoint(r, k)
		case k == sh.createAt():
			s.createLate(r)
			// The short form kills soon, mostly mid-snapshot of the new
			// table, so that the next run resumes it from its own start;
			// the long form kills anywhere up to its catch-up and after.
			wait := 300
			if sh.long {
				wait = 2500
			}
			time.Sleep(time.Duration(s.rng.IntN(wait)) * time.Millisecond)
		case k == sh.dropAt():
			s.waitStreaming(r)
			s.dropTable(r, victim)
			s.waitKillPoint(r, k)
		default:
			s.waitKillPoint(r, k)
		}
		s.killRun(r)
	}
	if s.killedInSnapshot() == 0 {
		t.Errorf("no kill landed while a table was in its snapshot phase; the snapshot needs more rows or buckets")
	}

	final := s.start()
	// Let the writer run on for a moment against the final run, then stop it
	// so that the output can catch up with tables that no longer change.
	time.Sleep(time.Duration(1000+s.rng.IntN(2000)) * time.Millisecond)
	steps, err := s.w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}
	s.catchUp(final, 2*time.Minute)
	s.finish(final)

	f := s.verify()
	of := s.checkOrder(t)
	s.checkOracle()
	line := fmt.Sprintf("crash: kills=%d events=%d lost=%d duplicates=%d bound=%d", sh.kills, f.events, f.lost, f.duplicates(), f.bound)
	if sh.dorisCache {
		s.checkNoLocalState()
		line += " cache=doris"
	}
	t.Logf("%s (workload steps %d, multi-table transactions %d of which %d checked whole, %d with snapshot rows between; kills mid-snapshot %d; "+
		"bound = per kill checkpoint_limit %d, plus %d in-progress tablets of each of at most %d tables in their snapshot)",
		line, steps, of.txns, of.checked, of.interleaved, s.killedInSnapshot(), s.pc.checkpointLimit, s.pc.parallelSplits, s.pc.parallelTables)
	fmt.Println(line)
}

// waitKillPoint waits for a random kill point. The first kill (the first
// three in the long form) comes after a few lines, so that it lands
// mid-snapshot while the snapshot lasts. The others wait for the
// binlog phase of every table first (always in the short form, in half the
// cases in the long one, whose other kills may land anywhere), then either
// for a random number of lines (mid-window) or a random time (which often
// falls between windows, as the input polls every second).
func (s *suite) waitKillPoint(r *run, k int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	early := k == 0 || (s.sh.long && k < 3)
	if !early && (!s.sh.long || s.rng.IntN(2) == 0) {
		s.waitStreaming(r)
	}
	switch {
	case early:
		r.waitLines(ctx, 1+s.rng.IntN(s.sh.rowsPerTable))
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
