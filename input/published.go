package input

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// Doris gives a transaction its commit TSO when it commits and makes its
// rows visible only when their publish finishes, later (FE
// DatabaseTransactionMgr sets the commit TSO before the COMMITTED state;
// PublishVersionDaemon makes the versions visible). A snapshot query reads
// the visible versions and waits for no publish. So a transaction that
// committed just before a table's stream start and was still publishing
// when the snapshot was read would be in neither phase: not in the
// snapshot, and not in the binlog, which begins at the start. An @incr
// query waits, before it scans, for the publish of every transaction of
// its table that committed before its end (doris-facts §10), so each
// table's snapshot first reads the empty window [start, start): when it
// returns, every change before the start is visible to the snapshot.
//
// The barrier reads APPEND_ONLY, whatever binlog_increment_type is: an
// expired start is no error for it, and the wait does not depend on the
// type.

// awaitPublished returns once every transaction that wrote t and committed
// before start is visible. Doris's "not yet" answers are retried as for a
// binlog window, within the same limits; any other failure counts against
// request_retries, as a snapshot split's does, after which the run ends
// with the error and nothing has been read.
func (sr *splitReader) awaitPublished(ctx context.Context, t *tableInfo, start windowplan.Bound) error {
	sr.log.Debugf("Waiting until the transactions of %s that committed before %s are visible, before reading its snapshot", t.name.key, start)
	w := windowplan.Window{Start: start, End: start}
	rt := newWindowRetry(sr.conf, sr.log, sr.m.windowRetries, t.name.key, w)
	defer sr.m.windowRetries.Done(rt)
	failed := 0
	for {
		err := sr.readBarrier(ctx, t, start)
		if err == nil {
			rt.Recovered()
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if _, notYet := flight.AsWindowError(err); !notYet {
			if failed++; failed >= sr.conf.Retries {
				return fmt.Errorf("waiting for the publishes before the snapshot of %s (the empty binlog window at %s) failed %d times: %w",
					t.name.key, start, failed, err)
			}
		}
		step, ferr := rt.Classify(err, w)
		if ferr != nil {
			return ferr
		}
		if err := doris.Sleep(ctx, step.Wait); err != nil {
			return err
		}
	}
}

// readBarrier runs the empty window's query once; it holds no rows.
func (sr *splitReader) readBarrier(ctx context.Context, t *tableInfo, start windowplan.Bound) error {
	at := start.String()
	sql := doris.IncrSQLWhere(t.name.db, t.name.table, sr.conf.ReadFields, at, at, "APPEND_ONLY", "")
	return sr.c.onSession(ctx, sr.conf.QueryTimeout, func(qctx context.Context, fc *flight.Client) error {
		return fc.Query(qctx, sql, func(arrow.RecordBatch) error { return nil })
	})
}
