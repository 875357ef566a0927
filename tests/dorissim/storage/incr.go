package storage

import (
	"context"
	"math"
	"time"
)

// Hidden binlog columns appended to @incr output (doris-facts §12).
const (
	ColBinlogTSO = "__DORIS_BINLOG_TSO__"
	ColBinlogLSN = "__DORIS_BINLOG_LSN__"
	ColBinlogOp  = "__DORIS_BINLOG_OP__"
)

// @incr output op codes (doris-facts §7).
const (
	OpAppend       int8 = 0
	OpDelete       int8 = 1
	OpUpdateBefore int8 = 2
	OpUpdateAfter  int8 = 3
)

// incrPlan is everything an @incr read needs once validated.
type incrPlan struct {
	t        *table
	cols     []Column
	typ      string
	req      incrRequest
	lo, hi   int64 // TSO bounds [lo, hi)
	hasStart bool  // start state comes from the window's first records
	empty    bool
}

// Incr reads a table's Row Binlog like `SELECT * FROM t@incr(...)`: table
// columns then __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__,
// in (TSO, LSN, OP) order. Errors are *Error.
func (s *Store) Incr(ctx context.Context, db, table string, p IncrParams) ([]Column, RowIter, error) {
	req, err := parseIncrParams(p)
	if err != nil {
		return nil, nil, err
	}
	plan, err := s.planIncr(db, table, req)
	if err != nil {
		return nil, nil, err
	}
	outCols := incrColumns(plan.cols)
	if plan.empty {
		return outCols, newChunkIter(nil), nil
	}
	log, err := s.visibleWait(ctx, plan)
	if err != nil {
		return nil, nil, err
	}
	lo, hi := searchTSO(log, plan.lo), searchTSO(log, plan.hi)
	window := log[lo:hi]
	if err := s.takeMemoryPressure(len(window)); err != nil {
		return nil, nil, err
	}
	if err := checkIncrMemory(len(window), p.MemLimit); err != nil {
		return nil, nil, err
	}
	switch plan.typ {
	case IncrDetail:
		return outCols, &detailIter{recs: window}, nil
	case IncrAppendOnly:
		return outCols, &detailIter{recs: window, appendOnly: true}, nil
	}
	return outCols, newChunkIter([][][]any{minDelta(plan.t, window, plan.hasStart)}), nil
}

func incrColumns(cols []Column) []Column {
	out := append([]Column(nil), cols...)
	return append(out,
		Column{Name: ColBinlogTSO, Type: Type{Kind: BigInt}},
		Column{Name: ColBinlogLSN, Type: Type{Kind: BigInt}},
		Column{Name: ColBinlogOp, Type: Type{Kind: TinyInt}},
	)
}

// planIncr validates the read against the table and resolves the TSO
// window, TTL and the window-readiness rules (doris-facts §5, §6, §9, §10).
func (s *Store) planIncr(db, name string, req incrRequest) (incrPlan, error) {
	s.mu.RLock()
	t, err := s.lookup(db, name)
	var plan incrPlan
	if err == nil {
		plan = incrPlan{t: t, cols: t.def.Columns, req: req}
		err = resolveIncrType(t, &plan)
	}
	var ttl int64
	if err == nil {
		ttl = t.ttl
	}
	s.mu.RUnlock()
	if err != nil {
		return plan, err
	}
	cur := s.CurrentTSO()
	if req.hasStart && req.hasEnd && req.startMs > req.endMs {
		plan.empty = true
		return plan, nil
	}
	if req.hasEnd && req.endMs > cur.PhysicalMs {
		return plan, s.endAfterCurrentError(req.endMs, cur.PhysicalMs)
	}
	if req.hasStart && req.startMs > cur.PhysicalMs {
		plan.empty = true
		return plan, nil
	}
	if s.takeForced5101() {
		return plan, s.visibleWaitError(req.endMs)
	}
	return plan, applyWindow(&plan, cur.PhysicalMs, ttl)
}

func resolveIncrType(t *table, plan *incrPlan) error {
	if !t.rowBinlog {
		return errorf("INCR query requires ROW binlog enabled on base table.")
	}
	if t.def.Keys != UniqueKeys {
		plan.typ = IncrAppendOnly
		return nil
	}
	plan.typ = plan.req.typ
	if plan.typ == "" {
		plan.typ = IncrMinDelta
	}
	if plan.typ == IncrMinDelta && !t.needHist {
		return errorf("MIN_DELTA INCR query requires base table to enable binlog.need_historical_value=true")
	}
	return nil
}

// applyWindow turns the request into TSO bounds. Records with commit
// physical ms <= now - ttl are expired: reads without a start see only the
// retained part, DETAIL/APPEND_ONLY with an expired start silently begin at
// the first retained record, MIN_DELTA with an expired start fails.
func applyWindow(plan *incrPlan, nowMs, ttl int64) error {
	cutoffMs := nowMs - ttl*1000
	retainedLo := (cutoffMs + 1) << tsoLogicalBits
	plan.lo = retainedLo
	plan.hi = math.MaxInt64
	if plan.req.hasEnd {
		plan.hi = plan.req.endMs << tsoLogicalBits
	}
	if !plan.req.hasStart {
		plan.empty = plan.lo >= plan.hi
		return nil
	}
	if plan.req.startMs <= cutoffMs {
		if plan.typ == IncrMinDelta {
			return errorf("Row binlog offset has expired according to binlog.ttl_seconds")
		}
		// A window that ended before the cut-off holds nothing retained.
		plan.empty = plan.lo >= plan.hi
		return nil
	}
	plan.lo = plan.req.startMs << tsoLogicalBits
	plan.hasStart = true
	return nil
}

// visibleWait blocks until no open transaction that wrote the table and
// began before the window end is still running, and no commit before the
// window end waits for its publish (publish.go), then snapshots the log.
func (s *Store) visibleWait(ctx context.Context, plan incrPlan) ([]*record, error) {
	timer := time.NewTimer(s.opts.VisibleWaitTimeout)
	defer timer.Stop()
	for {
		s.mu.RLock()
		blocked := hasBlockingTxn(plan.t, plan.req) || s.heldBefore(plan.t, plan.req)
		log := plan.t.log[:len(plan.t.log):len(plan.t.log)]
		wake := s.txnEnded
		hold := s.holds[plan.t]
		s.mu.RUnlock()
		if !blocked {
			return log, nil
		}
		if err := s.awaitWake(ctx, wake, timer.C, hold, plan.req.endMs); err != nil {
			return nil, err
		}
	}
}

// awaitWake waits for a transaction to end or publish, counting the wait
// on the table's publish hold, if any.
func (s *Store) awaitWake(ctx context.Context, wake chan struct{}, timeout <-chan time.Time, hold *PublishHold, endMs int64) error {
	if hold != nil {
		hold.waiting.Add(1)
		defer hold.waiting.Add(-1)
	}
	select {
	case <-wake:
		return nil
	case <-timeout:
		return s.visibleWaitError(endMs)
	case <-ctx.Done():
		return &Error{Code: CodeGeneric, Message: "incr query cancelled while waiting for visible transactions: " + ctx.Err().Error()}
	}
}

func hasBlockingTxn(t *table, req incrRequest) bool {
	for _, startMs := range t.open {
		if !req.hasEnd || startMs < req.endMs {
			return true
		}
	}
	return false
}
