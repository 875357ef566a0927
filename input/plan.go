package input

import (
	"context"
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
)

const (
	phaseSnapshot = "snapshot"
	phaseBinlog   = "binlog"
	phaseDone     = "done"

	stateVersion = 1
)

// plan is where a generation starts: the committed state, and which phases
// are still to run from it.
type plan struct {
	state    checkpoint.State
	snapshot bool
	stream   bool
}

// plan decides the start. A committed checkpoint wins over scan_mode and
// scan_timestamp, as restoring Flink state does.
func (r *reader) plan(ctx context.Context, c *conn) (*plan, error) {
	st := r.lastCommitted()
	if st == nil && r.store != nil {
		loaded, err := r.loadCheckpoint(ctx)
		if err != nil {
			return nil, err
		}
		st = loaded
	}
	if st != nil {
		return planFrom(*st), nil
	}
	return r.freshPlan(ctx, c)
}

func (r *reader) loadCheckpoint(ctx context.Context) (*checkpoint.State, error) {
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
	if st == nil {
		return nil, nil
	}
	want := r.conf.DB + "." + r.conf.Table
	if st.Table != want {
		return nil, fatalf("checkpoint key %s in cache %s belongs to table %s, not %s: give each pipeline its own checkpoint_cache_key",
			r.conf.CheckpointKey, r.conf.CheckpointCache, st.Table, want)
	}
	r.log.Infof("Resuming from the checkpoint in cache %s (key %s, phase %s%s); scan_mode %s and scan_timestamp are ignored while a checkpoint exists",
		r.conf.CheckpointCache, r.conf.CheckpointKey, st.Phase, describePosition(st), r.conf.ScanMode)
	r.commitMu.Lock()
	r.committed = st
	r.commitMu.Unlock()
	return st, nil
}

func seqOf(st *checkpoint.State) uint64 {
	if st == nil {
		return 0
	}
	return st.Seq
}

func describePosition(st *checkpoint.State) string {
	switch st.Phase {
	case phaseSnapshot:
		s := fmt.Sprintf(", %d tablets done", len(st.DoneTablets))
		if st.StreamStart != "" {
			s += ", binlog from " + st.StreamStart
		}
		return s
	case phaseBinlog:
		if st.Last != nil {
			return fmt.Sprintf(", window [%s, %s) after tso %d lsn %d op %d", st.WindowStart, st.WindowEnd, st.Last.TSO, st.Last.LSN, st.Last.Op)
		}
		return ", binlog from " + st.WindowStart
	}
	return ""
}

func planFrom(st checkpoint.State) *plan {
	switch st.Phase {
	case phaseSnapshot:
		return &plan{state: st, snapshot: true, stream: st.StreamStart != ""}
	case phaseBinlog:
		return &plan{state: st, stream: true}
	default:
		return &plan{state: st}
	}
}

// freshPlan starts from scan_mode. Every mode with a binlog phase stores its
// start at once, so a crash before the first ack keeps the same start.
func (r *reader) freshPlan(ctx context.Context, c *conn) (*plan, error) {
	st := checkpoint.State{Version: stateVersion, Table: r.conf.DB + "." + r.conf.Table}
	p := &plan{}
	switch r.conf.ScanMode {
	case "snapshot":
		st.Phase, p.snapshot = phaseSnapshot, true
	case "initial":
		ts, err := r.nextWholeSecond(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("resolving the stream start for initial mode: %w", err)
		}
		st.Phase, st.StreamStart = phaseSnapshot, ts.Text
		p.snapshot, p.stream = true, true
	case "latest":
		ts, err := c.rest.CurrentTimestamp(ctx)
		if err != nil {
			return nil, fmt.Errorf("resolving the stream start for latest mode: %w", err)
		}
		st.Phase, st.WindowStart, p.stream = phaseBinlog, ts.Text, true
	case "from-timestamp":
		st.Phase, st.WindowStart, p.stream = phaseBinlog, r.conf.ScanTimestamp, true
	default:
		return nil, fatalf("scan_mode %q is not supported", r.conf.ScanMode)
	}
	p.state = st
	if p.stream {
		if err := r.commitStart(ctx, &st); err != nil {
			return nil, err
		}
	}
	r.log.Infof("Starting %s of %s.%s with scan_mode %s%s", phaseNames(p), r.conf.DB, r.conf.Table, r.conf.ScanMode, describePosition(&st))
	return p, nil
}

func phaseNames(p *plan) string {
	switch {
	case p.snapshot && p.stream:
		return "snapshot then binlog"
	case p.snapshot:
		return "snapshot"
	default:
		return "binlog"
	}
}

// commitStart saves the resolved start before anything is read.
func (r *reader) commitStart(ctx context.Context, st *checkpoint.State) error {
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	if err := r.persistLocked(ctx, st); err != nil {
		return fmt.Errorf("saving the stream start to checkpoint_cache %s: %w", r.conf.CheckpointCache, err)
	}
	return nil
}

// nextWholeSecond waits for the Doris second after the current one and
// returns it. Stream starts are whole seconds, so a start taken by flooring
// "now" reaches back to the beginning of the current second: every commit of
// that second before the snapshot would come again from the binlog. Starting
// initial mode's binlog at the next boundary, and reading the snapshot only
// after it, shrinks that overlap to the milliseconds between the boundary and
// the snapshot read. A few attempts bound the wait if clocks disagree.
func (r *reader) nextWholeSecond(ctx context.Context, c *conn) (doris.Timestamp, error) {
	first, err := c.rest.CurrentTimestamp(ctx)
	if err != nil {
		return first, err
	}
	ts := first
	for range 3 {
		now := time.Now()
		if err := waitFor(ctx, now.Truncate(time.Second).Add(time.Second+tickSlack).Sub(now)); err != nil {
			return ts, err
		}
		if ts, err = c.rest.CurrentTimestamp(ctx); err != nil || compareWall(ts.Text, first.Text) > 0 {
			return ts, err
		}
	}
	return ts, nil
}
