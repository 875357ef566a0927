package storage

import (
	"io"
	"sort"
	"sync"
)

// outRow appends the hidden binlog columns to a row image.
func outRow(row []any, tso, lsn int64, op int8) []any {
	out := make([]any, len(row), len(row)+3)
	copy(out, row)
	return append(out, tso, lsn, op)
}

// detailIter streams DETAIL (or APPEND_ONLY) rows lazily from the record
// window, so million-record backlogs need no materialization.
type detailIter struct {
	mu         sync.Mutex
	recs       []*record
	i          int
	pending    []any // UA row queued after its UB
	appendOnly bool
}

func (it *detailIter) Next() ([]any, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.pending != nil {
		r := it.pending
		it.pending = nil
		return r, nil
	}
	for it.i < len(it.recs) {
		rec := it.recs[it.i]
		it.i++
		if it.appendOnly {
			if rec.op == rawInsert {
				return outRow(rec.row, rec.tso, rec.lsn, OpAppend), nil
			}
			continue
		}
		return it.detailRow(rec), nil
	}
	return nil, io.EOF
}

func (it *detailIter) detailRow(rec *record) []any {
	switch rec.op {
	case rawInsert:
		return outRow(rec.row, rec.tso, rec.lsn, OpAppend)
	case rawDelete:
		return outRow(rec.row, rec.tso, rec.lsn, OpDelete)
	}
	if rec.before == nil {
		// Without before-images Doris reports an update as one append row.
		return outRow(rec.row, rec.tso, rec.lsn, OpAppend)
	}
	it.pending = outRow(rec.row, rec.tso, rec.lsn, OpUpdateAfter)
	return outRow(rec.before, rec.tso, rec.lsn, OpUpdateBefore)
}

func (it *detailIter) Close() error {
	it.mu.Lock()
	it.recs, it.i, it.pending = nil, 0, nil
	it.mu.Unlock()
	return nil
}

// keyChange tracks a key's first and last record inside the window.
type keyChange struct {
	first, last *record
	lastPos     int
}

// minDelta computes the net change per key between the window's start and
// end (doris-facts §7). The state at start comes from the key's first record
// in the window (insert: absent; update: its before-image; delete: its
// pre-delete values), so no history before the window is needed; without a
// start bound every key is absent at start. Output rows carry the TSO/LSN of
// the key's last record in the window, and rows are ordered by it.
func minDelta(t *table, window []*record, hasStart bool) [][]any {
	changes := map[string]*keyChange{}
	for pos, rec := range window {
		c, ok := changes[rec.key]
		if !ok {
			c = &keyChange{first: rec}
			changes[rec.key] = c
		}
		c.last, c.lastPos = rec, pos
	}
	ordered := make([]*keyChange, 0, len(changes))
	for _, c := range changes {
		ordered = append(ordered, c)
	}
	sort.Slice(ordered, func(a, b int) bool { return ordered[a].lastPos < ordered[b].lastPos })
	var out [][]any
	for _, c := range ordered {
		out = appendNetChange(t, out, c, hasStart)
	}
	return out
}

func appendNetChange(t *table, out [][]any, c *keyChange, hasStart bool) [][]any {
	var start []any
	if hasStart {
		start = stateBefore(t, c.first)
	}
	var end []any
	if c.last.op != rawDelete {
		end = c.last.row
	}
	tso, lsn := c.last.tso, c.last.lsn
	switch {
	case start == nil && end != nil:
		out = append(out, outRow(end, tso, lsn, OpAppend))
	case start != nil && end != nil:
		out = append(out, outRow(start, tso, lsn, OpUpdateBefore), outRow(end, tso, lsn, OpUpdateAfter))
	case start != nil && end == nil:
		out = append(out, outRow(start, tso, lsn, OpDelete))
	}
	return out
}

// stateBefore is the key's row just before rec (nil = absent).
func stateBefore(t *table, rec *record) []any {
	switch rec.op {
	case rawInsert:
		return nil
	case rawDelete:
		return rec.row
	}
	if rec.before != nil {
		return rec.before
	}
	// Written before need_historical_value was enabled: only the key is known.
	return keyOnly(t, rec.row)
}
