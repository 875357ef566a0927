package input

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// An initial snapshot meets its binlog at one commit TSO X per table
// (docs/time-travel.md §3). With F the current Doris second (floored, so
// already begun), X is the last TSO before F, and the table's binlog
// begins at E = F - 1s and leaves out the table's changes at or before X
// (checkpoint.SnapshotFloor), which the snapshot holds. Doris's @incr
// windows began at E's first TSO after apache/doris#67480 and after E's
// first millisecond before it; both begin at or before X+1, so leaving out
// TSO <= X meets the snapshot at X+1 under either. E and F are past, so
// the start waits for nothing. Before a split is read, the empty @incr
// window [F, F) fences the publishes of every commit before F, so of every
// commit up to X, which a read as of X would otherwise miss: time-travel
// reads wait for no publish.

// snapshot_consistency values.
const (
	consistencyExact       = "exact"
	consistencyBest        = "best"
	consistencyAtLeastOnce = "at_least_once"
)

var consistencyValues = []string{consistencyExact, consistencyBest, consistencyAtLeastOnce}

// How one table's snapshot is read.
const (
	// readAsOf: every split FOR VERSION AS OF X.
	readAsOf = "as of its start TSO"
	// readCommitFiltered: the current version, keeping the rows whose
	// __DORIS_COMMIT_TSO_COL__ is at or before X.
	readCommitFiltered = "filtered by commit TSO"
	// readCurrent: the current version, as earlier releases did.
	readCurrent = "at the current version"
)

// snapshotPlan is how a table's snapshot is read: its mode, the TSO X it
// meets the binlog at (0 for a table of a checkpoint written before X was
// kept), and why it is not read as of X.
type snapshotPlan struct {
	mode   string
	asOf   int64
	reason string
}

// startTSO is the binlog start E and snapshot TSO X for a start taken at
// Doris time now (a whole second).
func startTSO(now windowplan.Bound) (start windowplan.Bound, asOf int64) {
	start = now - 1000
	return start, snapshotTSOOf(start)
}

// snapshotTSOOf is the TSO a snapshot whose binlog begins at start is read
// as of: the last TSO of start's second (checkpoint.SnapshotTSOAt).
func snapshotTSOOf(start windowplan.Bound) int64 { return checkpoint.SnapshotTSOAt(start.Stored()) }

// fenceOf is the empty @incr window whose answer makes every commit at or
// before asOf visible: at the second after the one that holds it.
func fenceOf(asOf int64) windowplan.Bound {
	return windowplan.BoundAt(doris.PhysicalMs(asOf)) + 1000
}

// tableCapability is what a table's properties allow, before the FE is
// asked: readAsOf, readCommitFiltered or readCurrent, and why not better.
func tableCapability(key string, props *doris.TableProperties) (mode, reason string) {
	switch {
	case !props.BinlogEnabled || props.BinlogFormat != "ROW":
		return readCurrent, fmt.Sprintf(`table %s has no row binlog ("binlog.enable" = "true", "binlog.format" = "ROW")`, key)
	case props.KeysType == "DUP_KEYS":
		return readAsOf, ""
	case props.KeysType == "UNIQUE_KEYS" && props.MergeOnWrite && props.NeedHistoricalValue:
		return readAsOf, ""
	case props.KeysType == "UNIQUE_KEYS" && props.MergeOnWrite:
		return readCommitFiltered, fmt.Sprintf(`merge-on-write table %s has no "binlog.need_historical_value" = "true", which Doris needs to read it as of a TSO `+
			`(it can be set only when a table is created: create it again with the property and swap it in with ALTER TABLE ... REPLACE WITH TABLE)`, key)
	}
	return readCurrent, fmt.Sprintf("table %s is a %s table, which Doris cannot read as of a TSO", key, props.KeysType)
}

// planSnapshot decides how t's snapshot, which meets its binlog at asOf,
// is read: the best its properties and the FE allow, within
// snapshot_consistency. A table that cannot give what exact requires is
// an error naming the property to set. The FE is asked, never trusted by
// the absence of an error: an FE before time travel on OLAP tables parses
// FOR VERSION AS OF and silently reads the current data, but it has no
// __DORIS_COMMIT_TSO_COL__ (docs/time-travel.md §1.10).
func (sr *splitReader) planSnapshot(ctx context.Context, t *tableInfo, asOf int64) (snapshotPlan, error) {
	plan := snapshotPlan{mode: readCurrent, asOf: asOf}
	if asOf <= 0 {
		plan.reason = "its snapshot started before this release kept a snapshot TSO in the checkpoint"
		return plan, nil
	}
	if sr.conf.SnapshotConsistency == consistencyAtLeastOnce {
		plan.reason = "snapshot_consistency is at_least_once"
		return plan, nil
	}
	props, err := t.properties(ctx, false)
	if err != nil {
		return plan, err
	}
	plan.mode, plan.reason = tableCapability(t.name.key, props)
	if plan.mode != readCurrent {
		has, err := sr.commitTSO.get(func() (bool, error) { return sr.hasCommitTSO(ctx, t) })
		if err != nil {
			return plan, err
		}
		if !has {
			plan.mode = readCurrent
			plan.reason = fmt.Sprintf("the FE shows no %s column on table %s, so it cannot read the table as of a TSO (time travel on OLAP tables needs Doris 5.0 or later, in integrated storage-compute mode)",
				doris.ColCommitTSO, t.name.key)
		}
	}
	if plan.mode != readAsOf && sr.conf.SnapshotConsistency == consistencyExact {
		return plan, fatalf("snapshot_consistency is exact, but %s. Set the table property, or use snapshot_consistency: best", plan.reason)
	}
	return plan, nil
}

// logPlan says once, when a table's snapshot starts, how it is read and,
// below exact, what its consumers get instead.
func (sr *splitReader) logPlan(key string, p snapshotPlan) {
	switch p.mode {
	case readAsOf:
		sr.log.Debugf("Snapshot of %s is read as of TSO %d; its binlog begins right after it", key, p.asOf)
	case readCommitFiltered:
		sr.log.Warnf("Snapshot of %s cannot be read as of TSO %d: %s. It is read at the current version and keeps only the rows whose %s is at or before %d, "+
			"so nothing comes twice; but a key changed while the snapshot is read is left out of it and arrives only as its binlog change: "+
			"its consumers never see the key's value at the start, and get an update or delete of a row they do not have",
			key, p.asOf, p.reason, doris.ColCommitTSO, p.asOf)
	default:
		if p.asOf > 0 && p.reason == "snapshot_consistency is at_least_once" {
			sr.log.Debugf("Snapshot of %s is read at the current version (snapshot_consistency: at_least_once)", key)
			return
		}
		sr.log.Warnf("Snapshot of %s is read at the current version, not as of a TSO: %s. A change committed while it is read can come twice, "+
			"in the snapshot and from the binlog", key, p.reason)
	}
}

// hasCommitTSO asks the FE whether t shows the hidden commit TSO column.
// A failure that does not say the column is unknown is retried, within
// request_retries, and then ends the run: the answer decides what the
// snapshot guarantees, so it is never guessed.
func (sr *splitReader) hasCommitTSO(ctx context.Context, t *tableInfo) (bool, error) {
	var bo windowplan.Backoff
	for attempt := 1; ; attempt++ {
		err := sr.c.onSession(ctx, sr.conf.QueryTimeout, func(qctx context.Context, fc *flight.Client) error {
			return withHiddenColumns(qctx, fc, func() error {
				return fc.Query(qctx, doris.CommitTSOProbeSQL(t.name.db, t.name.table), func(arrow.RecordBatch) error { return nil })
			})
		})
		switch {
		case err == nil:
			return true, nil
		case isUnknownColumn(err):
			return false, nil
		case ctx.Err() != nil:
			return false, context.Cause(ctx)
		case attempt >= sr.conf.Retries:
			return false, fmt.Errorf("checking whether %s has %s (whether Doris can read it as of a TSO) failed %d times: %w",
				t.name.key, doris.ColCommitTSO, attempt, err)
		}
		if err := doris.Sleep(ctx, bo.Next()); err != nil {
			return false, err
		}
	}
}

// withHiddenColumns runs fn on a session that shows hidden columns, and
// gives the session back as it was.
func withHiddenColumns(ctx context.Context, fc *flight.Client, fn func() error) error {
	if err := fc.Exec(ctx, doris.ShowHiddenColumnsOn); err != nil {
		return fmt.Errorf("%s: %w", doris.ShowHiddenColumnsOn, err)
	}
	if err := fn(); err != nil {
		return err
	}
	if err := fc.Exec(ctx, doris.ShowHiddenColumnsOff); err != nil {
		return fmt.Errorf("%s: %w", doris.ShowHiddenColumnsOff, err)
	}
	return nil
}

// isUnknownColumn tells Doris's answer for a column the table does not
// have (Nereids: "Unknown column '...' in 'table list'"; older planners:
// "... cannot be resolved").
func isUnknownColumn(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, strings.ToLower(doris.ColCommitTSO)) &&
		(strings.Contains(msg, "unknown column") || strings.Contains(msg, "cannot be resolved") || strings.Contains(msg, "not found"))
}

// afterSnapshot is where a binlog read of table key starts: after skip,
// and after the rows its snapshot holds (checkpoint.SnapshotFloor), in the
// table's first window.
func afterSnapshot(em *emitter, key string, skip *checkpoint.Pos) *checkpoint.Pos {
	var floor checkpoint.Pos
	var ok bool
	em.view(func(st *checkpoint.State) { floor, ok = st.SnapshotFloor(key) })
	if !ok || skip != nil && !skip.Less(floor) {
		return skip
	}
	return &floor
}

// exactSnapshotProblem is why t cannot give the exact initial snapshot
// that snapshot_consistency: exact requires, or nil; the connection test
// asks it of every selected table.
func exactSnapshotProblem(ctx context.Context, cat *catalog, t *tableInfo) error {
	conf := cat.conf
	if conf.ScanMode != "initial" || conf.SnapshotConsistency != consistencyExact {
		return nil
	}
	sr := &splitReader{conf: conf, c: cat.c, log: cat.log}
	_, err := sr.planSnapshot(ctx, t, 1) // any TSO: only the capability is asked
	return err
}
