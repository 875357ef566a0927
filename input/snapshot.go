package input

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

// snapChunk is a batch of rows of one split; the last chunk of a split says
// so, which is when the split's tablets count as done.
type snapChunk struct {
	msgs    []*service.Message
	tablets []int64 // set on the split's last chunk
}

// runSnapshot reads every split that the checkpoint does not mark done, up to
// max_parallel_snapshot_splits at a time, and returns the state that follows
// the snapshot.
func (r *reader) runSnapshot(g *generation, batcher *service.Batcher, st checkpoint.State) (checkpoint.State, error) {
	todo, total, err := r.pendingSplits(g.ctx, g.conn, st.DoneTablets)
	if err != nil {
		return st, err
	}
	// Set, never Incr: Benthos's plugin-exporter gauges start every Incr
	// from zero, so an increment would export 1 forever.
	splitsDone := total - len(todo)
	r.m.splitsTotal.Set(int64(total))
	r.m.splitsDone.Set(int64(splitsDone))
	r.log.Infof("Snapshot: %d splits of %d tablet(s) at most, %d already done, reading %d at a time",
		total, r.conf.RequestTabletSize, total-len(todo), r.conf.MaxParallelSnapshotSplits)

	ctx, cancel := context.WithCancel(g.ctx)
	defer cancel()
	chunks, wait := r.startSplitReaders(ctx, g.conn, todo)
	done := append([]int64(nil), st.DoneTablets...)
	var emitErr error
	for ch := range chunks {
		if emitErr != nil {
			continue
		}
		if ch.tablets != nil {
			done = append(done, ch.tablets...)
			splitsDone++
			r.m.splitsDone.Set(int64(splitsDone))
		}
		next := st
		next.DoneTablets = done[:len(done):len(done)]
		if emitErr = r.emit(g, batcher, ch.msgs, next); emitErr != nil {
			cancel()
		}
	}
	if err := errors.Join(emitErr, wait()); err != nil {
		return st, err
	}
	final := checkpoint.State{Version: stateVersion, Table: st.Table, Phase: phaseDone}
	if st.StreamStart != "" {
		final.Phase, final.WindowStart = phaseBinlog, st.StreamStart
	}
	if err := r.emit(g, batcher, nil, final); err != nil {
		return st, err
	}
	r.log.Infof("Snapshot finished (%d splits); next phase: %s", total, final.Phase)
	return final, nil
}

// pendingSplits plans splits with _query_plan and drops tablets already done.
func (r *reader) pendingSplits(ctx context.Context, c *conn, doneTablets []int64) ([]doris.Split, int, error) {
	planSQL := doris.SnapshotSQL(r.conf.DB, r.conf.Table, r.conf.ReadFields, nil, r.conf.FilterQuery)
	qp, err := c.rest.QueryPlan(ctx, r.conf.DB, r.conf.Table, planSQL)
	if err != nil {
		return nil, 0, fmt.Errorf("query plan for %s.%s: %w", r.conf.DB, r.conf.Table, err)
	}
	splits := doris.PlanSplits(qp, r.conf.RequestTabletSize)
	done := make(map[int64]bool, len(doneTablets))
	for _, t := range doneTablets {
		done[t] = true
	}
	var todo []doris.Split
	for _, sp := range splits {
		var left []int64
		for _, t := range sp.Tablets {
			if !done[t] {
				left = append(left, t)
			}
		}
		if len(left) > 0 {
			sp.Tablets = left
			todo = append(todo, sp)
		}
	}
	return todo, len(splits), nil
}

// startSplitReaders runs the split workers. The returned channel closes when
// all of them stop; wait then reports the first error.
func (r *reader) startSplitReaders(ctx context.Context, c *conn, todo []doris.Split) (<-chan snapChunk, func() error) {
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
	workers := min(r.conf.MaxParallelSnapshotSplits, len(todo))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fs := &splitSession{c: c}
			defer fs.close()
			for sp := range work {
				if err := r.readSplitWithRetry(ctx, fs, sp, chunks); err != nil {
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
func (r *reader) readSplitWithRetry(ctx context.Context, fs *splitSession, sp doris.Split, out chan<- snapChunk) error {
	bo := newRetryBackoff()
	for attempt := 1; ; attempt++ {
		err := r.readSplit(ctx, fs, sp, out)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if attempt >= r.conf.Retries {
			return fmt.Errorf("snapshot split %s (tablets %v) failed %d times: %w", sp.ID, sp.Tablets, attempt, err)
		}
		r.log.Warnf("Snapshot split %s (tablets %v) failed, re-reading it from its start (attempt %d of %d): %v",
			sp.ID, sp.Tablets, attempt+1, r.conf.Retries, err)
		fs.close()
		if err := waitFor(ctx, bo.next()); err != nil {
			return err
		}
	}
}

func (r *reader) readSplit(ctx context.Context, fs *splitSession, sp doris.Split, out chan<- snapChunk) error {
	fc, err := fs.client(ctx)
	if err != nil {
		return err
	}
	qctx, cancel := context.WithTimeout(ctx, r.conf.QueryTimeout)
	defer cancel()
	rc := newRowConverter(r.conf, rowjson.Options{DatetimePrecision: r.datetimePrecision(fs.c)})
	sql := doris.SnapshotSQL(r.conf.DB, r.conf.Table, r.conf.ReadFields, sp.Tablets, r.conf.FilterQuery)
	buf := make([]*service.Message, 0, r.maxRows)
	send := func(ch snapChunk) error {
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
			if len(buf) >= r.maxRows {
				r.m.rows.Incr(int64(len(buf)), phaseSnapshot, "read")
				if err := send(snapChunk{msgs: buf}); err != nil {
					return err
				}
				buf = make([]*service.Message, 0, r.maxRows)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading snapshot split %s: %w", sp.ID, err)
	}
	r.m.rows.Incr(int64(len(buf)), phaseSnapshot, "read")
	return send(snapChunk{msgs: buf, tablets: sp.Tablets})
}

// datetimePrecision gives the converter each DATETIME column's declared
// fractional digits, which the Arrow unit alone cannot tell.
func (r *reader) datetimePrecision(c *conn) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.props == nil {
		return nil
	}
	return c.props.DatetimePrecision
}

// splitSession is one split worker's own Flight session, re-dialled after a
// failure.
type splitSession struct {
	c  *conn
	fc *flight.Client
}

func (fs *splitSession) client(ctx context.Context) (*flight.Client, error) {
	if fs.fc == nil {
		fc, err := fs.c.dialFlight(ctx)
		if err != nil {
			return nil, err
		}
		fs.fc = fc
	}
	return fs.fc, nil
}

func (fs *splitSession) close() {
	if fs.fc != nil {
		_ = fs.fc.Close()
		fs.fc = nil
	}
}
