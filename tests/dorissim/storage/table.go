package storage

import (
	"hash/fnv"
	"sort"
	"strings"
	"sync/atomic"
)

// table is one table's state; guarded by Store.mu.
type table struct {
	db        string
	def       TableDef
	props     map[string]string // effective properties for SHOW CREATE
	rowBinlog bool
	needHist  bool
	mow       bool
	ttl       int64
	keyIdx    []int
	bucketIdx []int
	tablets   []*tablet // every partition's tablets, partition order then bucket
	part      partitioning
	parts     []*partition // RANGE: ascending bounds; LIST: creation order
	schemaVer int64
	log       []*record // committed binlog records in (TSO, LSN) order
	nextLSN   int64
	open      map[*Txn]int64 // open writing txns -> Begin physical ms
	tombs     map[string]any // sequence value of each deleted key (sequence.go)
}

// colIndex is the index of the column called name, -1 when there is none.
func (t *table) colIndex(name string) int {
	for i, c := range t.def.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// tablet holds one bucket's rows. UNIQUE tablets index rows by key and cache
// a key-sorted slice for scans; DUP tablets keep an append-only slice whose
// prefix readers may hold (deletes and truncation replace the slice).
type tablet struct {
	id     int64
	rows   map[string][]any
	sorted atomic.Pointer[[][]any]
	dup    [][]any
}

func newTablet(id int64) *tablet {
	return &tablet{id: id, rows: map[string][]any{}}
}

// bucketOf places a row by FNV-1a of the bucket columns' canonical text
// (the whole row for RANDOM distribution).
func (t *table) bucketOf(row []any) int {
	h := fnv.New32a()
	idx := t.bucketIdx
	if len(idx) == 0 {
		idx = allIndexes(len(row))
	}
	for _, i := range idx {
		h.Write([]byte(FormatValue(t.def.Columns[i].Type, row[i])))
		h.Write([]byte{0})
	}
	return int(h.Sum32() % uint32(t.def.Buckets))
}

func allIndexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// keyOf is the canonical text of a row's key columns, used as map key.
func (t *table) keyOf(row []any) string {
	var sb strings.Builder
	for n, i := range t.keyIdx {
		if n > 0 {
			sb.WriteByte(0)
		}
		if row[i] == nil {
			sb.WriteString("\x01NULL")
			continue
		}
		sb.WriteString(FormatValue(t.def.Columns[i].Type, row[i]))
	}
	return sb.String()
}

// tabletFor returns the tablet that holds row: its partition's bucket, or
// nil when no partition takes the row.
func (t *table) tabletFor(row []any) *tablet {
	p := partitionOf(t, row)
	if p == nil {
		return nil
	}
	return p.tablets[t.bucketOf(row)]
}

// get returns the committed row for a UNIQUE key.
func (t *table) get(row []any) ([]any, bool) {
	tb := t.tabletFor(row)
	if tb == nil {
		return nil, false
	}
	r, ok := tb.rows[t.keyOf(row)]
	return r, ok
}

// put stores a row; writes are routed before commit, so a row without a
// partition never gets here.
func (t *table) put(row []any) {
	tb := t.tabletFor(row)
	if tb == nil {
		return
	}
	if t.def.Keys == UniqueKeys {
		tb.rows[t.keyOf(row)] = row
		tb.sorted.Store(nil)
		return
	}
	tb.dup = append(tb.dup, row)
}

func (t *table) remove(row []any) {
	tb := t.tabletFor(row)
	if tb == nil {
		return
	}
	delete(tb.rows, t.keyOf(row))
	tb.sorted.Store(nil)
}

// removeDup deletes DUP rows equal to row, replacing the slice so readers
// holding the old one are unaffected.
func (t *table) removeDup(row []any) int {
	tb := t.tabletFor(row)
	if tb == nil {
		return 0
	}
	kept := make([][]any, 0, len(tb.dup))
	n := 0
	for _, r := range tb.dup {
		if rowsEqual(t.def.Columns, r, row) {
			n++
			continue
		}
		kept = append(kept, r)
	}
	tb.dup = kept
	return n
}

func rowsEqual(cols []Column, a, b []any) bool {
	for i, c := range cols {
		if !valuesEqual(c.Type, a[i], b[i]) {
			return false
		}
	}
	return true
}

// snapshot returns the tablet's rows in scan order. Callers hold the store
// lock (read or write); the returned slice is never mutated afterwards.
func (t *table) snapshot(tb *tablet) [][]any {
	if t.def.Keys != UniqueKeys {
		return tb.dup[:len(tb.dup):len(tb.dup)]
	}
	if p := tb.sorted.Load(); p != nil {
		return *p
	}
	out := make([][]any, 0, len(tb.rows))
	for _, r := range tb.rows {
		out = append(out, r)
	}
	t.sortByKey(out)
	tb.sorted.Store(&out)
	return out
}

func (t *table) sortByKey(rows [][]any) {
	sort.Slice(rows, func(a, b int) bool { return t.compareKeys(rows[a], rows[b]) < 0 })
}

func (t *table) compareKeys(a, b []any) int {
	for _, i := range t.keyIdx {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// findTablets resolves requested tablet ids (nil = all) in ascending order.
func (t *table) findTablets(ids []int64) ([]*tablet, error) {
	if ids == nil {
		return t.tablets, nil
	}
	byID := make(map[int64]*tablet, len(t.tablets))
	for _, tb := range t.tablets {
		byID[tb.id] = tb
	}
	sorted := append([]int64(nil), ids...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	var out []*tablet
	for i, id := range sorted {
		if i > 0 && sorted[i-1] == id {
			continue
		}
		tb, ok := byID[id]
		if !ok {
			return nil, errorf("Unknown tablet id %d in table %s", id, t.def.Name)
		}
		out = append(out, tb)
	}
	return out, nil
}
