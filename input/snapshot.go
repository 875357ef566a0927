package input

import (
	"context"
	"errors"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// startPendingSnapshots starts the snapshot of every table the position
// has in its snapshot phase.
func (co *coordinator) startPendingSnapshots(ctx context.Context) {
	for _, t := range co.phaseTables(checkpoint.PhaseSnapshot) {
		var done []int64
		co.em.view(func(st *checkpoint.State) { done = st.Tables[t.name.key].DoneTablets })
		co.startSnapshot(ctx, t, done)
	}
}

// startSnapshot reads t's snapshot in the background, at most
// max_parallel_snapshot_tables tables at once. A failure ends the run.
func (co *coordinator) startSnapshot(ctx context.Context, t *tableInfo, done []int64) {
	co.snapWG.Add(1)
	go func() {
		defer co.snapWG.Done()
		select {
		case co.snapSem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-co.snapSem }()
		if err := co.snapshotTable(ctx, t, done); err != nil {
			co.fail(err)
			return
		}
		select {
		case co.snapDone <- struct{}{}:
		default:
		}
	}()
}

// snapshotTable reads every split of t that done does not cover, up to
// max_parallel_snapshot_splits at a time, then moves t to its next phase.
func (co *coordinator) snapshotTable(ctx context.Context, t *tableInfo, done []int64) error {
	todo, total, err := co.sr.pending(ctx, t, done)
	if err != nil {
		return err
	}
	key := t.name.key
	splitsDone := total - len(todo)
	co.m.splitsTotal.Set(int64(total), key)
	co.m.splitsDone.Set(int64(splitsDone), key)
	co.log.Infof("Snapshot of %s: %d splits of %d tablet(s) at most, %d already done, reading %d at a time",
		key, total, co.conf.RequestTabletSize, total-len(todo), co.conf.MaxParallelSnapshotSplits)
	co.refreshTableGauges()

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks, wait := co.sr.start(rctx, t, todo)
	var emitErr error
	for ch := range chunks {
		if emitErr != nil {
			continue
		}
		finished := ch.tablets
		if finished != nil {
			splitsDone++
			co.m.splitsDone.Set(int64(splitsDone), key)
		}
		emitErr = co.em.emit(ctx, ch.msgs, func(st *checkpoint.State) { st.SnapshotTabletsDone(key, finished) })
		if emitErr != nil {
			cancel()
		}
	}
	if err := errors.Join(emitErr, wait()); err != nil {
		return err
	}
	return co.finishSnapshot(ctx, key, total)
}

// finishSnapshot moves a table past its snapshot: a table that started with
// the chain joins it, a late one catches up from its own start, and without
// a binlog phase the table is done.
func (co *coordinator) finishSnapshot(ctx context.Context, key string, splits int) error {
	var next string
	err := co.em.emit(ctx, nil, func(st *checkpoint.State) { next = st.FinishSnapshot(key) })
	if err != nil {
		return err
	}
	co.log.Infof("Snapshot of %s finished (%d splits); next phase: %s", key, splits, next)
	co.refreshTableGauges()
	return nil
}
