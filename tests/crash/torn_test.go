package crash

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// TestCrashTornCheckpoint tears the input's one checkpoint file after a
// kill, as the `file` cache's truncate-then-write leaves it when the kill
// lands mid-write: empty after the first stored checkpoint, cut in half
// after a kill in the binlog phase. Each restart must log the torn copy,
// resume from the intact backup and lose nothing.
func TestCrashTornCheckpoint(t *testing.T) {
	sh := shape{tables: 2, rowsPerTable: 200, buckets: 8, maxSteps: 400, pause: 20 * time.Millisecond}
	sd := seed(t)
	t.Logf("torn checkpoint: seed %d", sd)
	s := newSuite(t, sh, sd)
	s.w.start(sh.maxSteps)

	// As soon as a checkpoint is stored: initial mode stores its stream start
	// before the first snapshot row, so this is usually mid-snapshot.
	s.killAndTear(false, func(*checkpoint.State) bool { return true })
	// In the binlog phase, once rows of a window have been acked or a window
	// committed.
	s.killAndTear(true, func(st *checkpoint.State) bool {
		for _, tbl := range s.live {
			if phaseOf(st, tbl) != checkpoint.PhaseBinlog {
				return false
			}
		}
		starts := s.obs.binlogStarts(s.live[0])
		return st.Stream.Last != nil || (len(starts) > 0 && st.Stream.Start.String() > starts[len(starts)-1])
	})

	final := s.start()
	s.waitLog(final)
	steps, err := s.w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}
	s.catchUp(final, 2*time.Minute)
	s.finish(final)
	f := s.verify()
	s.checkOrder(t)
	t.Logf("torn checkpoint: kills=%d events=%d lost=%d duplicates=%d bound=%d (workload steps %d)",
		len(s.kills), f.events, f.lost, f.duplicates(), f.bound, steps)
}

// killAndTear starts runs until one stores a checkpoint that ready accepts
// and whose backup copy is intact, kills it there and tears the primary
// copy. Every run after the first must have logged the torn copy left by the
// previous tear.
func (s *suite) killAndTear(half bool, ready func(*checkpoint.State) bool) {
	s.t.Helper()
	for attempt := 1; attempt <= 3; attempt++ {
		r := s.start()
		if len(s.runs) > 1 && attempt == 1 {
			s.waitLog(r)
		}
		s.waitState(r, ready)
		s.killRun(r)
		err := tearPrimary(s.pc.cacheDir(), half)
		if err == nil {
			s.t.Logf("run %d: tore the primary checkpoint (half: %v)", r.no, half)
			return
		}
		// The kill itself tore the backup: the primary is then intact and
		// the next run resumes from it; try again.
		s.t.Logf("run %d: %v; retrying", r.no, err)
	}
	s.t.Fatalf("could not tear the checkpoint with an intact backup in 3 kills")
}

// waitState waits (bounded) until the stored checkpoint satisfies ready and
// both of its copies are intact, i.e. a save has completed: a primary that
// a kill left missing cannot be torn.
func (s *suite) waitState(r *run, ready func(*checkpoint.State) bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if st := storedState(s.pc.cacheDir()); st != nil && ready(st) && bothIntact(s.pc.cacheDir()) {
			return
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("run %d: the checkpoint did not reach the wanted state within 60s: %s\n%s",
				r.no, describe(storedState(s.pc.cacheDir())), r.logTail())
		case <-r.done:
			s.t.Fatalf("run %d exited (%v)\n%s", r.no, r.waitErr, r.logTail())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// waitLog waits (bounded) until r logged that the checkpoint was torn and
// that it resumed.
func (s *suite) waitLog(r *run) {
	s.t.Helper()
	want := fmt.Sprintf("Checkpoint key %s in cache cp is unreadable", checkpointKey)
	deadline := time.Now().Add(30 * time.Second)
	for {
		log := r.log()
		if strings.Contains(log, want) && strings.Contains(log, "Resuming from the checkpoint") {
			return
		}
		if time.Now().After(deadline) || r.exited() {
			s.t.Fatalf("run %d did not log %q and resume within 30s\n%s", r.no, want, r.logTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
