package storage

import (
	"io"
	"sync"
)

// RowIter yields rows; Next returns io.EOF at the end.
type RowIter interface {
	Next() ([]any, error)
	Close() error
}

// chunkIter walks a list of immutable row slices without copying rows.
type chunkIter struct {
	mu     sync.Mutex
	chunks [][][]any
	ci, ri int
	closed bool
}

func newChunkIter(chunks [][][]any) *chunkIter { return &chunkIter{chunks: chunks} }

func (it *chunkIter) Next() ([]any, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	for !it.closed && it.ci < len(it.chunks) {
		if it.ri < len(it.chunks[it.ci]) {
			r := it.chunks[it.ci][it.ri]
			it.ri++
			return r, nil
		}
		it.ci, it.ri = it.ci+1, 0
	}
	return nil, io.EOF
}

func (it *chunkIter) Close() error {
	it.mu.Lock()
	it.closed = true
	it.chunks = nil
	it.mu.Unlock()
	return nil
}

// Scan returns a consistent snapshot of the committed rows of the given
// tablets (nil = all): tablet id ascending, then key order (UNIQUE) or
// insertion order (DUP). Only slice headers are taken under the lock.
func (s *Store) Scan(db, table string, tablets []int64) (RowIter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return nil, err
	}
	tbs, err := t.findTablets(tablets)
	if err != nil {
		return nil, err
	}
	s.noteScan(t)
	chunks := make([][][]any, len(tbs))
	for i, tb := range tbs {
		chunks[i] = t.snapshot(tb)
	}
	return newChunkIter(chunks), nil
}

// Scan reads committed rows plus this transaction's own staged writes.
func (tx *Txn) Scan(db, table string, tablets []int64) (RowIter, error) {
	if tx.done {
		return nil, errorf("transaction %d is already finished", tx.id)
	}
	tx.s.mu.RLock()
	defer tx.s.mu.RUnlock()
	t, err := tx.s.lookup(db, table)
	if err != nil {
		return nil, err
	}
	tbs, err := t.findTablets(tablets)
	if err != nil {
		return nil, err
	}
	tt := tx.tables[t]
	chunks := make([][][]any, len(tbs))
	for i, tb := range tbs {
		chunks[i] = t.snapshot(tb)
	}
	if tt == nil || len(tt.ops) == 0 {
		return newChunkIter(chunks), nil
	}
	if t.def.Keys == UniqueKeys {
		overlayUnique(t, tt.ops, tbs, chunks)
	} else {
		overlayDup(t, tt.ops, tbs, chunks)
	}
	return newChunkIter(chunks), nil
}

// overlayUnique replays staged ops over committed rows per touched tablet.
func overlayUnique(t *table, ops []op, tbs []*tablet, chunks [][][]any) {
	view := map[string][]any{}
	touched := map[*tablet]bool{}
	for _, o := range ops {
		key := t.keyOf(o.row)
		cur, seen := view[key]
		if !seen {
			cur, _ = t.get(o.row)
		}
		switch {
		case o.del:
			cur = nil
		case cur != nil && o.cols != nil:
			cur = mergePartial(cur, o.row, o.cols)
		default:
			cur = o.row
		}
		view[key] = cur
		touched[t.tabletFor(o.row)] = true
	}
	for i, tb := range tbs {
		if !touched[tb] {
			continue
		}
		merged := make([][]any, 0, len(chunks[i]))
		for _, r := range chunks[i] {
			if _, ok := view[t.keyOf(r)]; !ok {
				merged = append(merged, r)
			}
		}
		for _, r := range view {
			if r != nil && t.tabletFor(r) == tb {
				merged = append(merged, r)
			}
		}
		t.sortByKey(merged)
		chunks[i] = merged
	}
}

// overlayDup appends staged rows and applies staged deletes (binlog-off DUP).
func overlayDup(t *table, ops []op, tbs []*tablet, chunks [][][]any) {
	idx := map[*tablet]int{}
	for i, tb := range tbs {
		idx[tb] = i
	}
	for _, o := range ops {
		i, ok := idx[t.tabletFor(o.row)]
		if !ok {
			continue
		}
		if !o.del {
			chunks[i] = append(chunks[i][:len(chunks[i]):len(chunks[i])], o.row)
			continue
		}
		kept := make([][]any, 0, len(chunks[i]))
		for _, r := range chunks[i] {
			if !rowsEqual(t.def.Columns, r, o.row) {
				kept = append(kept, r)
			}
		}
		chunks[i] = kept
	}
}
