package input

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/changes"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
	"github.com/rpconnect-doris/rpconnect-doris/input/schemameta"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// splitReader reads the snapshot splits of one table: planning them, and
// reading each on a Flight session of its own with retries. What a split's
// rows mean for the table's phase is the coordinator's business.
type splitReader struct {
	conf    *Config
	c       *conn
	m       *metrics
	log     *service.Logger
	maxRows int

	commitTSO feAnswer // whether the FE shows __DORIS_COMMIT_TSO_COL__
}

// snapChunk is a batch of rows of one query; the last chunk of a query says
// so, which is when its tablets count as done.
type snapChunk struct {
	msgs    []*service.Message
	tablets []int64 // set on the query's last chunk
	splits  int     // the splits the query read, on its last chunk
}

// pending plans splits with _query_plan, drops tablets already done and
// forms the queries that read the rest.
func (sr *splitReader) pending(ctx context.Context, t *tableInfo, doneTablets []int64) ([]splitQuery, int, error) {
	planSQL := doris.SnapshotSQL(t.name.db, t.name.table, sr.conf.ReadFields, nil, sr.filterOf(t))
	qp, err := doris.PlanQuery(ctx, sr.c.rest, t.name.db, t.name.table, planSQL)
	if err != nil {
		return nil, 0, fmt.Errorf("query plan for %s: %w", t.name.key, err)
	}
	splits := doris.PlanSplits(qp, sr.conf.RequestTabletSize)
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
	if len(todo) == 0 {
		return nil, len(splits), nil
	}
	return queriesFor(todo, sr.isSmall(ctx, t)), len(splits), nil
}

// start runs the split workers of one table. The returned
// channel closes when all of them stop; wait then reports the first error.
func (sr *splitReader) start(ctx context.Context, t *tableInfo, todo []splitQuery, plan snapshotPlan) (<-chan snapChunk, func() error) {
	work := make(chan splitQuery, len(todo))
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
	for range min(sr.conf.MaxParallelSnapshotSplits, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sp := range work {
				if err := sr.readWithRetry(ctx, t, sp, plan, chunks); err != nil {
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

// readWithRetry re-reads a failed split from its start: rows already
// emitted from the failed attempt may be delivered twice, rows are never lost.
func (sr *splitReader) readWithRetry(ctx context.Context, t *tableInfo, sp splitQuery, plan snapshotPlan, out chan<- snapChunk) error {
	var bo windowplan.Backoff
	for attempt := 1; ; attempt++ {
		err := sr.read(ctx, t, sp, plan, out)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if plan.mode == readAsOf && flight.IsExpired(err) {
			return fatalf("snapshot split %s of %s is read as of TSO %d (%s UTC), which the table's row binlog no longer retains: "+
				"the snapshot took longer than the table's \"binlog.ttl_seconds\". The input stops rather than read the rest at another version. "+
				"Raise binlog.ttl_seconds above the time the snapshot takes (ALTER TABLE ... SET (\"binlog.ttl_seconds\" = ...)), "+
				"then delete the checkpoint to start the snapshot again: %v",
				sp.ID, t.name.key, plan.asOf, windowplan.BoundAt(doris.PhysicalMs(plan.asOf)), err)
		}
		if doris.IsPermanent(err) {
			return fatalf("snapshot split %s of %s (tablets %v) cannot be read, and reading it again cannot fix it: %v. "+
				"The input stops rather than skip its rows", sp.ID, t.name.key, sp.Tablets, err)
		}
		if attempt >= sr.conf.Retries {
			return fmt.Errorf("snapshot split %s of %s (tablets %v) failed %d times: %w", sp.ID, t.name.key, sp.Tablets, attempt, err)
		}
		sr.log.Warnf("Snapshot split %s of %s (tablets %v) failed, re-reading it from its start (attempt %d of %d): %v",
			sp.ID, t.name.key, sp.Tablets, attempt+1, sr.conf.Retries, err)
		if err := doris.Sleep(ctx, bo.Next()); err != nil {
			return err
		}
	}
}

// read reads one query's splits on a session of its own.
func (sr *splitReader) read(ctx context.Context, t *tableInfo, sp splitQuery, plan snapshotPlan, out chan<- snapChunk) error {
	resolve := func(rs *arrow.Schema) (*schemameta.Meta, error) { return t.schemaFor(ctx, sr.conf.ReadFields, rs) }
	rc := changes.NewConverter(changes.Table{DB: t.name.db, Name: t.name.table, Key: t.name.key}, rowjson.Options{DatetimePrecision: t.datetimePrecision()}, resolve)
	sql := plan.splitSQL(t, sr.conf.ReadFields, sr.filterOf(t), sp.Tablets)
	keep := plan.rowFilter()
	maxRows := sr.maxRows
	buf := make([]*service.Message, 0, maxRows)
	send := func(ch snapChunk) error {
		sr.m.rows.Incr(int64(len(ch.msgs)), t.name.key, checkpoint.PhaseSnapshot, "read")
		select {
		case out <- ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	onBatch := func(rec arrow.RecordBatch) error {
		if err := rc.Bind(rec); err != nil {
			return err
		}
		if err := keep.bind(rec); err != nil {
			return fmt.Errorf("snapshot split %s of %s: %w", sp.ID, t.name.key, err)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if !keep.keeps(i) {
				continue
			}
			msg, err := rc.SnapshotMessage(i)
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
	}
	// Converting a batch and waiting for the run to take its chunks is the
	// reader's time, not the query's: it stops the request_query_timeout
	// clock, so a slow output never times a split out.
	err := sr.c.onSession(ctx, sr.conf.QueryTimeout, func(qctx context.Context, fc *flight.Client) error {
		query := func() error {
			return fc.Query(qctx, sql, func(rec arrow.RecordBatch) error {
				return holdQuery(qctx, func() error { return onBatch(rec) })
			})
		}
		if keep != nil {
			return withHiddenColumns(qctx, fc, query)
		}
		return query()
	})
	if err != nil {
		return fmt.Errorf("reading snapshot split %s of %s: %w", sp.ID, t.name.key, err)
	}
	return send(snapChunk{msgs: buf, tablets: sp.Tablets, splits: sp.splits})
}
