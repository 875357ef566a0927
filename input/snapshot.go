package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

// snapChunk is a batch of rows of one split; the last chunk of a split says
// so, which is when the split's tablets count as done.
type snapChunk struct {
	msgs    []*service.Message
	tablets []int64 // set on the split's last chunk
}

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
	todo, total, err := co.pendingSplits(ctx, t, done)
	if err != nil {
		return err
	}
	key := t.name.key
	co.m.splitsTotal.Set(int64(total), key)
	co.m.splitsDone.Set(int64(total-len(todo)), key)
	co.log.Infof("Snapshot of %s: %d splits of %d tablet(s) at most, %d already done, reading %d at a time",
		key, total, co.conf.RequestTabletSize, total-len(todo), co.conf.MaxParallelSnapshotSplits)
	co.refreshTableGauges()

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks, wait := co.startSplitReaders(rctx, t, todo)
	var emitErr error
	for ch := range chunks {
		if emitErr != nil {
			continue
		}
		finished := ch.tablets
		if finished != nil {
			co.m.splitsDone.Incr(1, key)
		}
		emitErr = co.em.emit(ctx, ch.msgs, func(st *checkpoint.State) {
			if ts := st.Tables[key]; ts != nil && finished != nil {
				ts.DoneTablets = append(slices.Clip(ts.DoneTablets), finished...)
			}
		})
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
	err := co.em.emit(ctx, nil, func(st *checkpoint.State) {
		ts := st.Tables[key]
		if ts == nil {
			return
		}
		ts.DoneTablets = nil
		switch {
		case st.Stream == nil:
			ts.Phase = checkpoint.PhaseDone
		case ts.Start == "":
			ts.Phase = checkpoint.PhaseBinlog
		default:
			ts.Phase, ts.CatchUp = checkpoint.PhaseCatchUp, &checkpoint.Window{Start: ts.Start}
		}
		next = ts.Phase
	})
	if err != nil {
		return err
	}
	co.log.Infof("Snapshot of %s finished (%d splits); next phase: %s", key, splits, next)
	co.refreshTableGauges()
	return nil
}

// pendingSplits plans splits with _query_plan and drops tablets already done.
func (co *coordinator) pendingSplits(ctx context.Context, t *tableInfo, doneTablets []int64) ([]doris.Split, int, error) {
	planSQL := doris.SnapshotSQL(t.name.db, t.name.table, co.conf.ReadFields, nil, co.conf.FilterQuery)
	qp, err := co.c.rest.QueryPlan(ctx, t.name.db, t.name.table, planSQL)
	if err != nil {
		return nil, 0, fmt.Errorf("query plan for %s: %w", t.name.key, err)
	}
	splits := doris.PlanSplits(qp, co.conf.RequestTabletSize)
	done := make(map[int64]bool, len(doneTablets))
	for _, id := range doneTablets {
		done[id] = true
	}
	var todo []doris.Split
	for _, sp := range splits {
		var left []int64
		for _, id := range sp.Tablets {
			if !done[id] {
				left = append(left, id)
			}
		}
		if len(left) > 0 {
			sp.Tablets = left
			todo = append(todo, sp)
		}
	}
	return todo, len(splits), nil
}

// startSplitReaders runs the split workers of one table. The returned
// channel closes when all of them stop; wait then reports the first error.
func (co *coordinator) startSplitReaders(ctx context.Context, t *tableInfo, todo []doris.Split) (<-chan snapChunk, func() error) {
	work := make(chan doris.Split, len(todo))
	for _, sp := range todo {
		work <- sp
	}
	close(work)
	chunks := make(chan snapChunk)
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	for range min(co.conf.MaxParallelSnapshotSplits, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sp := range work {
				if err := co.readSplitWithRetry(ctx, t, sp, chunks); err != nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(chunks)
	}()
	return chunks, func() error {
		errMu.Lock()
		defer errMu.Unlock()
		return firstErr
	}
}

// readSplitWithRetry re-reads a failed split from its start: rows already
// emitted from the failed attempt may be delivered twice, rows are never lost.
func (co *coordinator) readSplitWithRetry(ctx context.Context, t *tableInfo, sp doris.Split, out chan<- snapChunk) error {
	bo := newRetryBackoff()
	for attempt := 1; ; attempt++ {
		err := co.readSplit(ctx, t, sp, out)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if attempt >= co.conf.Retries {
			return fmt.Errorf("snapshot split %s of %s (tablets %v) failed %d times: %w", sp.ID, t.name.key, sp.Tablets, attempt, err)
		}
		co.log.Warnf("Snapshot split %s of %s (tablets %v) failed, re-reading it from its start (attempt %d of %d): %v",
			sp.ID, t.name.key, sp.Tablets, attempt+1, co.conf.Retries, err)
		if err := waitFor(ctx, bo.next()); err != nil {
			return err
		}
	}
}

// readSplit reads one split on a session of its own.
func (co *coordinator) readSplit(ctx context.Context, t *tableInfo, sp doris.Split, out chan<- snapChunk) (err error) {
	fc, err := co.c.session(ctx)
	if err != nil {
		return err
	}
	defer func() { co.c.release(fc, err == nil) }()
	qctx, cancel := context.WithTimeout(ctx, co.conf.QueryTimeout)
	defer cancel()
	rc := newRowConverter(t.name, rowjson.Options{DatetimePrecision: t.datetimePrecision()})
	sql := doris.SnapshotSQL(t.name.db, t.name.table, co.conf.ReadFields, sp.Tablets, co.conf.FilterQuery)
	maxRows := co.r.maxRows
	buf := make([]*service.Message, 0, maxRows)
	send := func(ch snapChunk) error {
		co.m.rows.Incr(int64(len(ch.msgs)), t.name.key, checkpoint.PhaseSnapshot, "read")
		select {
		case out <- ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err = fc.Query(qctx, sql, func(rec arrow.RecordBatch) error {
		if err := rc.bind(rec); err != nil {
			return err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			msg, err := rc.snapshotMessage(i)
			if err != nil {
				return err
			}
			buf = append(buf, msg)
			if len(buf) >= maxRows {
				if err := send(snapChunk{msgs: buf}); err != nil {
					return err
				}
				buf = make([]*service.Message, 0, maxRows)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading snapshot split %s of %s: %w", sp.ID, t.name.key, err)
	}
	return send(snapChunk{msgs: buf, tablets: sp.Tablets})
}
