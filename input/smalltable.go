package input

import (
	"context"
	"fmt"
	"slices"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
)

// A snapshot split is one Flight query (a GetFlightInfo on the FE, a DoGet
// on a BE), and with small tablets the queries cost more than their rows:
// a database of many small tables spends its time on queries. A table with
// at most snapshot_query_rows rows is therefore read in one query per BE.
// The count comes from the table itself, not from Doris's tablet
// statistics, which lag a load by up to two report intervals, and it is
// taken again on every start, so a restart of an unchanged table forms the
// same queries and emits the same batches. Any grouping of a small table's
// tablets holds at most its rows, so a skewed table cannot make one query
// large.

// splitQuery is what one query reads: a split, or all the pending splits
// of one BE of a small table, and how many splits that is.
type splitQuery struct {
	doris.Split
	splits int
}

// queriesFor turns splits into queries: one each, or with small set, one
// per BE holding all of its splits, in the splits' order. A merged query's
// ID names its first and last split.
func queriesFor(splits []doris.Split, small bool) []splitQuery {
	out := make([]splitQuery, 0, len(splits))
	first := ""
	for _, sp := range splits {
		n := len(out)
		if !small || n == 0 || out[n-1].BE != sp.BE {
			out = append(out, splitQuery{Split: sp, splits: 1})
			first = sp.ID
			continue
		}
		q := &out[n-1]
		// Clip makes append copy, so the plan's splits stay as they are.
		q.Tablets = append(slices.Clip(q.Tablets), sp.Tablets...)
		q.ID = first + ".." + sp.ID
		q.splits++
	}
	return out
}

// isSmall counts t's rows up to snapshot_query_rows + 1 and says whether
// it has at most snapshot_query_rows. A failed count is only slower: the
// table is read one split per query.
func (sr *splitReader) isSmall(ctx context.Context, t *tableInfo) bool {
	limit := int64(sr.conf.SnapshotQueryRows)
	if limit <= 0 {
		return false
	}
	n, err := sr.countUpTo(ctx, t, limit+1)
	if err != nil {
		if ctx.Err() != nil {
			return false // stopping: the snapshot's own read reports it
		}
		sr.log.Warnf("Counting the rows of %s failed, so it is read one snapshot split per query: %v", t.name.key, err)
		return false
	}
	return n <= limit
}

func (sr *splitReader) countUpTo(ctx context.Context, t *tableInfo, limit int64) (n int64, err error) {
	err = sr.c.onSession(ctx, sr.conf.QueryTimeout, func(qctx context.Context, fc *flight.Client) error {
		n, err = flight.QueryInt64(qctx, fc, doris.CountUpToSQL(t.name.db, t.name.table, limit))
		if err == nil && n < 0 {
			err = fmt.Errorf("COUNT(*) of %s came back negative (%d)", t.name.key, n)
		}
		return err
	})
	return n, err
}
