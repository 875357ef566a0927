package storage

import (
	"context"
	"time"
)

// LoadTxn is one stream load's transaction from the moment its label is
// reserved: Doris begins the txn when the BE sees the headers, before the
// body arrives, so a second load with the label meanwhile sees RUNNING.
type LoadTxn struct {
	s     *Store
	db    string
	tx    *Txn
	entry *loadEntry // nil for a load without a label
}

// BeginLoad starts a load transaction and reserves its label (none when
// label is empty). A label whose latest txn is not aborted fails with
// *LabelUsedError.
func (s *Store) BeginLoad(db, label string) (*LoadTxn, error) {
	if label != "" {
		if err := CheckLabel(label); err != nil {
			return nil, err
		}
	}
	tx := s.Begin()
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.dbs[db]
	if !ok {
		return nil, errUnknownDB(db)
	}
	lt := &LoadTxn{s: s, db: db, tx: tx}
	if label == "" {
		return lt, nil
	}
	e, err := s.reserveLabelLocked(d, label, tx)
	if err != nil {
		return nil, err
	}
	lt.entry = e
	return lt, nil
}

// TxnID is the transaction id reported as TxnId.
func (lt *LoadTxn) TxnID() int64 { return lt.tx.id }

// Abort ends the load without applying anything; its label becomes
// reusable (state ABORTED).
func (lt *LoadTxn) Abort(reason string) {
	lt.s.mu.Lock()
	defer lt.s.mu.Unlock()
	lt.abortLocked(reason)
}

func (lt *LoadTxn) abortLocked(reason string) {
	if lt.entry != nil {
		if lt.entry.status == TxnPrepare {
			lt.s.abortEntryLocked(lt.entry, reason)
		}
		return
	}
	if !lt.tx.done {
		lt.tx.finishLocked()
	}
}

// Run stages the rows and commits them with one TSO, or, with
// req.TwoPhaseCommit, leaves them pre-committed: invisible and without
// binlog records until Txn2PC commits. Any failure aborts the txn.
func (lt *LoadTxn) Run(table string, req LoadRequest) (LoadResult, error) {
	res := LoadResult{TxnID: lt.tx.id}
	st, err := lt.s.stageLoad(lt.tx, lt.db, table, req)
	res.Filtered, res.Rejected = st.filtered, st.rejected
	res.Loaded = int64(len(req.Rows)) - st.filtered
	return lt.complete(res, req.TwoPhaseCommit, err)
}

// complete commits (or pre-commits) what was staged, or aborts on err.
func (lt *LoadTxn) complete(res LoadResult, twoPC bool, err error) (LoadResult, error) {
	s := lt.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		lt.abortLocked(err.Error())
		res.Loaded = 0
		return res, err
	}
	if e := lt.entry; e != nil && e.status != TxnPrepare {
		// Aborted meanwhile, by _stream_load_2pc or the txn manager.
		return LoadResult{TxnID: res.TxnID}, errorf("transaction [%d] is already aborted, abort reason: %s", e.id, e.reason)
	}
	if twoPC {
		lt.precommitLocked(res)
		return res, nil
	}
	tso, err := lt.tx.commitLocked()
	if err != nil {
		lt.abortLocked(err.Error())
		return LoadResult{TxnID: res.TxnID}, err
	}
	res.TSO = tso
	if e := lt.entry; e != nil {
		e.status, e.finishedMs, e.tx, e.result = TxnVisible, s.nowMs(), nil, res
		e.result.Rejected = nil // the label keeps counts, not the error log
	}
	return res, nil
}

// precommitLocked parks the txn. A pre-committed txn is not a committing
// one, so it no longer holds back @incr visible waits on its tables.
func (lt *LoadTxn) precommitLocked(res LoadResult) {
	s := lt.s
	e := lt.entry
	if e == nil {
		// A 2PC load always has a label (the BE generates one).
		e = &loadEntry{id: lt.tx.id, db: lt.db, tx: lt.tx}
		s.loads[e.id] = e
		lt.entry = e
	}
	e.status, e.result = TxnPrecommitted, res
	e.result.Rejected = nil
	e.deadlineMs = s.nowMs() + s.opts.PrecommitTimeout.Milliseconds()
	for _, tt := range lt.tx.order {
		delete(tt.t.open, lt.tx)
	}
	s.signalTxnEnded()
}

// Load runs a whole stream load (begin, stage, commit) in one call.
func (s *Store) Load(ctx context.Context, db, table string, req LoadRequest) (LoadResult, error) {
	if err := ctx.Err(); err != nil {
		return LoadResult{}, errorf("stream load into %s.%s cancelled: %v", db, table, err)
	}
	lt, err := s.BeginLoad(db, req.Label)
	if err != nil {
		return LoadResult{}, err
	}
	return lt.Run(table, req)
}

// staged is what stageLoad filtered: rows that fit no partition, with the
// error-log line the BE writes for each.
type staged struct {
	filtered int64
	rejected []string
}

// stageLoad converts every row and stages the ops in tx; a row that fails
// conversion fails the whole load. Rows that fit no partition are filtered
// under max_filter_ratio (loadFiltered); nothing is staged when the load
// fails, so a group commit batch keeps only whole loads.
func (s *Store) stageLoad(tx *Txn, db, table string, req LoadRequest) (staged, error) {
	var st staged
	tt, cols, err := tx.tableFor(db, table)
	if err != nil {
		return st, err
	}
	plan, err := planLoad(tt.t, cols, req)
	if err != nil {
		return st, err
	}
	if plan.defaults, err = loadDefaults(cols, s.WallClock(time.Local)); err != nil {
		return st, err
	}
	ops := make([]op, 0, len(req.Rows))
	for n, raw := range req.Rows {
		o, err := plan.rowOp(tt.t, raw)
		if err != nil {
			st.filtered = int64(len(req.Rows) - n)
			return st, errorf("[DATA_QUALITY_ERROR]too many filtered rows: row %d: %v", n+1, err)
		}
		if !o.del && !s.routeRow(tt.t, o.row) {
			st.filtered++
			st.rejected = append(st.rejected, noPartitionReason(cols, o.row))
			continue
		}
		ops = append(ops, o)
	}
	if err := loadFiltered(req, st.filtered); err != nil {
		return st, err
	}
	tt.ops = append(tt.ops, ops...)
	return st, nil
}
