package input

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// loadCommitted returns the position a new run starts from: the last one
// committed in this process, else the stored checkpoint, else nil.
func (r *reader) loadCommitted(ctx context.Context, c *conn) (*checkpoint.State, error) {
	if st, ok := r.del.Committed(); ok {
		return st, nil
	}
	if r.store == nil {
		return nil, nil
	}
	st, info, err := r.store.Load(ctx)
	if err != nil {
		return nil, fatalf("checkpoint_cache %s, key %s: %v; the input will not guess a position. "+
			"Restore the key from a backup, or delete it (and %s.bak) to start again from scan_mode",
			r.conf.CheckpointCache, r.conf.CheckpointKey, err, r.conf.CheckpointKey)
	}
	if info.CorruptKey != "" {
		r.log.Warnf("Checkpoint key %s in cache %s is unreadable (%v), probably torn by a crash during a write; using the intact copy (seq %d)",
			info.CorruptKey, r.conf.CheckpointCache, info.CorruptErr, seqOf(st))
	}
	carried := false
	if st == nil {
		if st, err = r.loadCarriedOver(ctx); err != nil || st == nil {
			return nil, err
		}
		carried = true
	}
	if st.FromVersion != 0 {
		r.log.Infof("Checkpoint key %s in cache %s has the version %d layout of a single-table input; it is carried over as is and saved as version %d from the next commit",
			r.conf.CheckpointKey, r.conf.CheckpointCache, st.FromVersion, checkpoint.Version)
	}
	if st.InFEZone() {
		if err := r.convertToUTC(ctx, c, st); err != nil {
			return nil, err
		}
	}
	if carried {
		if err := r.saveCarriedOver(ctx, st); err != nil {
			return nil, err
		}
	}
	r.log.Infof("Resuming from the checkpoint in cache %s (key %s: %s); scan_mode %s and scan_timestamp are ignored while a checkpoint exists",
		r.conf.CheckpointCache, r.conf.CheckpointKey, describeState(st), r.conf.ScanMode)
	r.planned.restore(st)
	if st.Stream != nil && len(st.Stream.Planned) > 0 {
		r.log.Infof("Re-reading the binlog windows chosen before the restart, up to %s, so that the same batches come out again", st.Stream.Planned[len(st.Stream.Planned)-1])
		st.Stream.Planned = nil // kept by the planner; every save writes them again
	}
	r.del.Restore(st)
	return st, nil
}

func seqOf(st *checkpoint.State) uint64 {
	if st == nil {
		return 0
	}
	return st.Seq
}

// freshStart lists and admits the selected tables and resolves the start
// from scan_mode. Every mode with a binlog phase stores its start at once,
// so a crash before the first ack keeps the same start.
func (co *coordinator) freshStart(ctx context.Context) (*checkpoint.State, error) {
	tables, err := co.admitAll(ctx, false)
	if err != nil {
		return nil, err
	}
	st := checkpoint.New()
	snapshot := false
	switch co.conf.ScanMode {
	case "snapshot":
		snapshot = true
	case "initial":
		ts, err := co.r.nextWholeSecond(ctx, co.c)
		if err != nil {
			return nil, fmt.Errorf("resolving the stream start for initial mode: %w", err)
		}
		st.StartChain(ts.Text)
		snapshot = true
	case "latest":
		ts, err := co.c.currentBound(ctx)
		if err != nil {
			return nil, fmt.Errorf("resolving the stream start for latest mode: %w", err)
		}
		st.StartChain(ts.Text)
	case "from-timestamp":
		start, err := co.r.scanTimestampBound(ctx, co.c)
		if err != nil {
			return nil, err
		}
		st.StartChain(start)
	default:
		return nil, fatalf("scan_mode %q is not supported", co.conf.ScanMode)
	}
	for _, t := range tables {
		_, hi, err := t.tabletRange(ctx)
		if err != nil {
			return nil, err
		}
		st.AddTable(t.name.key, snapshot, "", hi)
		co.tables[t.name.key] = t
		t.notePartitions(ctx)
	}
	if st.Stream != nil {
		if err := co.r.del.Commit(ctx, st); err != nil {
			return nil, fmt.Errorf("saving the stream start to checkpoint_cache %s: %w", co.conf.CheckpointCache, err)
		}
	}
	co.log.Infof("Starting with scan_mode %s: %s", co.conf.ScanMode, describeState(st))
	return st, nil
}

// admitAll lists the selection and admits each table. A named table that
// cannot be followed stops the input; a matched one is skipped. On a fresh
// start every named table must exist; on a resume one that is gone was
// dropped and leaves.
func (co *coordinator) admitAll(ctx context.Context, resuming bool) ([]*tableInfo, error) {
	names := co.conf.Selection.fixed
	if co.conf.Selection.byPattern() || resuming {
		found, err := co.catalog().candidates(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing tables for include: %w", err)
		}
		names = found
	}
	var out []*tableInfo
	for _, name := range names {
		t, problem, err := co.catalog().admit(ctx, name)
		switch {
		case err != nil:
			return nil, err
		case problem != "" && co.conf.Selection.byPattern():
			co.noteSkipped(name.key, problem)
		case problem != "":
			return nil, fatalf("%s", problem)
		default:
			out = append(out, t)
		}
	}
	if len(out) == 0 && !co.conf.Selection.byPattern() {
		return nil, fmt.Errorf("no table to read")
	}
	return out, nil
}

// resume reconciles a stored position with the tables selected now: a table
// no longer selected or no longer there leaves, a newly selected one joins
// as it would at discovery (the first run applies those changes).
func (co *coordinator) resume(ctx context.Context, st *checkpoint.State) error {
	tables, err := co.admitAll(ctx, true)
	if err != nil {
		return err
	}
	for _, t := range tables {
		co.tables[t.name.key] = t
		t.notePartitions(ctx)
	}
	for _, key := range st.TableNames() {
		if co.tables[key] == nil {
			co.pendingRemovals = append(co.pendingRemovals, key)
		}
	}
	for _, t := range tables {
		if st.Tables[t.name.key] == nil {
			co.pendingAdds = append(co.pendingAdds, t)
		}
	}
	return nil
}

// describeState summarizes a position for logs.
func describeState(st *checkpoint.State) string {
	var parts []string
	if st.Stream != nil {
		parts = append(parts, "binlog "+describeWindow(st.Stream))
	}
	for _, name := range st.TableNames() {
		parts = append(parts, name+" "+describeTable(st.Tables[name]))
	}
	return strings.Join(parts, "; ")
}

func describeWindow(w *checkpoint.Window) string {
	switch {
	case w.Last != nil:
		return fmt.Sprintf("window [%s, %s) after tso %d table %s lsn %d op %d", w.Start, w.End, w.Last.TSO, w.Last.Table, w.Last.LSN, w.Last.Op)
	case w.End != "":
		return fmt.Sprintf("window [%s, %s)", w.Start, w.End)
	}
	return "from " + w.Start
}

func describeTable(t *checkpoint.Table) string {
	switch t.Phase {
	case checkpoint.PhaseSnapshot:
		s := fmt.Sprintf("snapshot, %d tablets done", len(t.DoneTablets))
		if t.Start != "" {
			s += ", its binlog from " + t.Start
		}
		return s
	case checkpoint.PhaseCatchUp:
		return "catching up, " + describeWindow(t.CatchUp)
	}
	return t.Phase
}

// nextWholeSecond waits for the Doris second after the current one and
// returns it. Stream starts are whole seconds, so a start taken by flooring
// "now" reaches back to the beginning of the current second: every commit of
// that second before the snapshot would come again from the binlog. Starting
// a binlog at the next boundary, and reading the snapshot only after it,
// shrinks that overlap to the milliseconds between the boundary and the
// snapshot read. A few attempts bound the wait if clocks disagree.
func (r *reader) nextWholeSecond(ctx context.Context, c *conn) (doris.Timestamp, error) {
	first, err := c.currentBound(ctx)
	if err != nil {
		return first, err
	}
	ts := first
	for range 3 {
		now := time.Now()
		if err := doris.Sleep(ctx, now.Truncate(time.Second).Add(time.Second+tickSlack).Sub(now)); err != nil {
			return ts, err
		}
		if ts, err = c.currentBound(ctx); err != nil || compareWall(ts.Text, first.Text) > 0 {
			return ts, err
		}
	}
	return ts, nil
}
