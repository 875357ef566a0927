package input

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// snapshots runs the run's table snapshots in the background, at most
// max_parallel_snapshot_tables at once; their rows and phase changes go
// through the coordinator's emitter, and a failure ends the run.
type snapshots struct {
	co       *coordinator
	sr       *splitReader
	sem      chan struct{} // max_parallel_snapshot_tables
	wg       sync.WaitGroup
	finished chan struct{}           // signalled when a table's snapshot finished
	fail     context.CancelCauseFunc // ends the run; set when it starts

	mu   sync.Mutex
	runs map[string]*snapRun // reads in progress, which a signal may stop (signalrun.go)
}

func newSnapshots(co *coordinator) *snapshots {
	sr := &splitReader{conf: co.conf, c: co.c, m: co.m, log: co.log, maxRows: co.maxRows}
	return &snapshots{co: co, sr: sr, sem: make(chan struct{}, co.conf.MaxParallelSnapshotTables), finished: make(chan struct{}, 1)}
}

// startPending starts the snapshot of every table the position has in its
// snapshot phase, counted into the coordinator's open round.
func (s *snapshots) startPending(ctx context.Context) {
	co := s.co
	pending := co.phaseTables(checkpoint.PhaseSnapshot)
	dones := make([][]int64, len(pending))
	for i, t := range pending {
		var start checkpoint.Bound
		co.em.view(func(st *checkpoint.State) {
			dones[i], start = st.Tables[t.name.key].DoneTablets, st.Tables[t.name.key].Start
		})
		co.enterRound(t.name.key, true, !start.IsZero())
	}
	for i, t := range pending {
		s.start(ctx, t, dones[i])
	}
}

// start reads t's snapshot in the background.
func (s *snapshots) start(ctx context.Context, t *tableInfo, done []int64) {
	ctx, end := s.track(ctx, t.name.key)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer end()
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-s.sem }()
		if err := s.read(ctx, t, done); err != nil {
			if stoppedBySignal(ctx) {
				return
			}
			s.fail(err)
			return
		}
		select {
		case s.finished <- struct{}{}:
		default:
		}
	}()
}

// wait returns when every snapshot started has ended.
func (s *snapshots) wait() { s.wg.Wait() }

// waitChainStart holds the chain at its start while a table that started
// with it (initial mode) is still in its snapshot.
func (s *snapshots) waitChainStart(ctx context.Context) error {
	for {
		waiting := false
		s.co.em.view(func(st *checkpoint.State) {
			for _, t := range st.Tables {
				waiting = waiting || t.Phase == checkpoint.PhaseSnapshot && t.Start.IsZero()
			}
		})
		if !waiting {
			return nil
		}
		select {
		case <-s.finished:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// read reads every split of t that done does not cover, up to
// max_parallel_snapshot_splits at a time, then moves t to its next phase.
func (s *snapshots) read(ctx context.Context, t *tableInfo, done []int64) error {
	co := s.co
	// The fence comes first: every query of the table after it, the
	// capability probe included, sees the commits the snapshot must hold.
	if err := s.awaitPublished(ctx, t); err != nil {
		return err
	}
	signal, filter := co.snapshotSignal(t.name.key)
	t.setSnapshotFilter(filter)
	plan, err := s.plan(ctx, t)
	if err != nil {
		return err
	}
	todo, total, err := s.sr.pending(ctx, t, done)
	if err != nil {
		return err
	}
	key := t.name.key
	splitsDone := total - pendingSplits(todo)
	co.m.splitsTotal.Set(int64(total), key)
	co.m.splitsDone.Set(int64(splitsDone), key)
	co.log.Debugf("Snapshot of %s: %d splits of %d tablet(s) at most, %d already done, reading %d in %d queries, %d at a time",
		key, total, co.conf.RequestTabletSize, splitsDone, total-splitsDone, len(todo), co.conf.MaxParallelSnapshotSplits)
	co.refreshTableGauges()

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks, wait := s.sr.start(rctx, t, todo, plan)
	var emitErr error
	for ch := range chunks {
		if emitErr != nil {
			continue
		}
		finished := ch.tablets
		if finished != nil {
			splitsDone += ch.splits
			co.m.splitsDone.Set(int64(splitsDone), key)
		}
		markSignal(ch.msgs, signal)
		emitErr = co.em.emit(emitContext(ctx), ch.msgs, func(st *checkpoint.State) { st.SnapshotTabletsDone(key, finished) })
		if emitErr != nil {
			cancel()
		}
	}
	if err := errors.Join(emitErr, wait()); err != nil {
		return err
	}
	return s.finish(ctx, key, total)
}

// plan decides, once per run, how t's snapshot is read (snapshotasof.go)
// and says so. A table without a binlog phase is read at the current
// version: nothing follows its snapshot for it to meet.
func (s *snapshots) plan(ctx context.Context, t *tableInfo) (snapshotPlan, error) {
	var start checkpoint.Bound
	var asOf int64
	s.co.em.view(func(st *checkpoint.State) {
		start = st.BinlogStart(t.name.key)
		if e := st.Tables[t.name.key]; e != nil {
			asOf = e.SnapshotTSO
		}
	})
	if start.IsZero() {
		return snapshotPlan{mode: readCurrent}, nil
	}
	plan, err := s.sr.planSnapshot(ctx, t, asOf)
	if err != nil {
		return plan, fmt.Errorf("planning the snapshot of %s: %w", t.name.key, err)
	}
	s.sr.logPlan(t.name.key, plan)
	return plan, nil
}

// awaitPublished holds a table's snapshot until the changes it must hold
// are visible (published.go): those at or before its snapshot TSO, or,
// for a table of an older checkpoint, those before its binlog start. A
// table without a binlog phase has no start to wait for.
func (s *snapshots) awaitPublished(ctx context.Context, t *tableInfo) error {
	var start checkpoint.Bound
	var asOf int64
	s.co.em.view(func(st *checkpoint.State) {
		start = st.BinlogStart(t.name.key)
		if e := st.Tables[t.name.key]; e != nil {
			asOf = e.SnapshotTSO
		}
	})
	if start.IsZero() {
		return nil
	}
	fence := windowplan.BoundOf(start)
	if asOf > 0 {
		fence = fenceOf(asOf)
	}
	return s.sr.awaitPublished(ctx, t, fence)
}

func pendingSplits(todo []splitQuery) int {
	n := 0
	for _, q := range todo {
		n += q.splits
	}
	return n
}

// finish moves a table past its snapshot: a table that started with the
// chain joins it, a late one catches up from its own start, and without a
// binlog phase the table is done.
func (s *snapshots) finish(ctx context.Context, key string, splits int) error {
	co := s.co
	var next string
	err := co.em.emit(ctx, nil, func(st *checkpoint.State) { next = st.FinishSnapshot(key) })
	if err != nil {
		return err
	}
	co.log.Debugf("Snapshot of %s finished (%d splits); next phase: %s", key, splits, next)
	co.roundOf(key).snapshotDone(key, splits)
	switch next {
	case checkpoint.PhaseCatchUp:
	case "": // dropped meanwhile
		co.leaveRound(key)
	default:
		co.joinedRound(key)
	}
	co.refreshTableGauges()
	return nil
}
