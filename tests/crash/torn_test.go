package crash

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// TestCrashTornCheckpoint tears the primary checkpoint file after a kill, as
// the `file` cache's truncate-then-write leaves it when the kill lands
// mid-write: empty after the first stored checkpoint, cut in half after a
// kill in the binlog phase. Each restart must log the torn copy, resume from the
// intact backup and lose nothing.
func TestCrashTornCheckpoint(t *testing.T) {
	sh := shape{tables: 1, rowsPerTable: 400, buckets: 8, maxSteps: 400, pause: 20 * time.Millisecond}
	sd := seed(t)
	t.Logf("torn checkpoint: seed %d", sd)
	s := newSuite(t, sh, sd)
	tbl := s.pc.tables[0]
	key := checkpoint.SanitizeKey("doris_binlog_" + db + "_" + tbl)

	w := newWriter(s.loads, sd^0xfeed, sh.pause)
	w.start(sh.maxSteps)
	t.Cleanup(func() { _, _ = w.stop() })

	// As soon as a checkpoint is stored: initial mode stores its stream start
	// before the first snapshot row, so this is usually mid-snapshot.
	s.killAndTear(tbl, false, func(*checkpoint.State) bool { return true })
	// In the binlog phase, once rows of a window have been acked or a window
	// committed.
	s.killAndTear(tbl, true, func(st *checkpoint.State) bool {
		if phaseOf(st, tbl) != checkpoint.PhaseBinlog {
			return false
		}
		starts := s.obs.streamStarts(tbl)
		return st.Stream.Last != nil || (len(starts) > 0 && st.Stream.Start > starts[len(starts)-1])
	})

	final := s.start()
	s.waitLog(final, key)
	steps, err := w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}
	s.catchUp(final, 2*time.Minute)
	s.finish(final)
	f := s.verify()
	t.Logf("torn checkpoint: kills=%d events=%d lost=%d duplicates=%d bound=%d (workload steps %d)",
		len(s.kills[tbl]), f.events, f.lost, f.duplicates(), f.bound, steps)
}

// killAndTear starts runs until one stores a checkpoint that ready accepts
// and whose backup copy is intact, kills it there and tears the primary
// copy. Every run after the first must have logged the torn copy left by the
// previous tear.
func (s *suite) killAndTear(tbl string, half bool, ready func(*checkpoint.State) bool) {
	s.t.Helper()
	key := checkpoint.SanitizeKey("doris_binlog_" + db + "_" + tbl)
	for attempt := 1; attempt <= 3; attempt++ {
		r := s.start()
		if len(s.runs) > 1 && attempt == 1 {
			s.waitLog(r, key)
		}
		s.waitState(r, tbl, ready)
		s.killRun(r)
		err := tearPrimary(s.pc.cacheDir(), db, tbl, half)
		if err == nil {
			s.t.Logf("run %d: tore the primary checkpoint of %s (half: %v)", r.no, tbl, half)
			return
		}
		// The kill itself tore the backup: the primary is then intact and
		// the next run resumes from it; try again.
		s.t.Logf("run %d: %v; retrying", r.no, err)
	}
	s.t.Fatalf("could not tear the checkpoint of %s with an intact backup in 3 kills", tbl)
}

// waitState waits (bounded) until the stored checkpoint of tbl satisfies
// ready and both of its copies are intact, i.e. a save has completed: a
// primary that a kill left missing cannot be torn.
func (s *suite) waitState(r *run, tbl string, ready func(*checkpoint.State) bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if st := storedState(s.pc.cacheDir(), db, tbl); st != nil && ready(st) && bothIntact(s.pc.cacheDir(), tbl) {
			return
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("run %d: the checkpoint of %s did not reach the wanted state within 60s: %+v\n%s",
				r.no, tbl, storedState(s.pc.cacheDir(), db, tbl), r.logTail())
		case <-r.done:
			s.t.Fatalf("run %d exited (%v)\n%s", r.no, r.waitErr, r.logTail())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// waitLog waits (bounded) until r logged that the checkpoint under key was
// torn and that it resumed.
func (s *suite) waitLog(r *run, key string) {
	s.t.Helper()
	want := fmt.Sprintf("Checkpoint key %s in cache cp is unreadable", key)
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

func bothIntact(cacheDir, tbl string) bool {
	path := checkpointPath(cacheDir, db, tbl)
	for _, p := range []string{path, path + checkpoint.BackupSuffix} {
		if st, err := readCopy(p); err != nil || st == nil {
			return false
		}
	}
	return true
}
