package changes

import (
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Batch is one table's next rows of a window, in position order and not
// yet converted: their positions, and where they are in one Arrow record
// batch. The merge orders rows by position alone and converts only what it
// emits, so a table whose rows come later holds compact Arrow columns, not
// messages, while it waits.
type Batch struct {
	Pos  []checkpoint.Pos
	rows []int // Pos[i] is row rows[i] of rec
	rec  arrow.RecordBatch
	conv *Converters
	refs atomic.Int32 // the merge's cursor and each chunk not yet converted
}

// Len is how many rows the batch holds.
func (b *Batch) Len() int { return len(b.Pos) }

func (b *Batch) retain() { b.refs.Add(1) }

// release drops one reference; the last one releases the record.
func (b *Batch) release() {
	if b.refs.Add(-1) == 0 && b.rec != nil {
		b.rec.Release()
		b.rec = nil
	}
}

// Converters hands one table's converters to the goroutines that read or
// convert its rows: a Converter is used by one goroutine at a time, and
// each keeps its own templates, so none is shared while in use.
type Converters struct {
	newConverter func() *Converter
	mu           sync.Mutex
	free         []*Converter
}

// NewConverters gives converters made by newConverter, reused once put back.
func NewConverters(newConverter func() *Converter) *Converters {
	return &Converters{newConverter: newConverter}
}

func (cs *Converters) get() *Converter {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if n := len(cs.free); n > 0 {
		rc := cs.free[n-1]
		cs.free = cs.free[:n-1]
		return rc
	}
	return cs.newConverter()
}

func (cs *Converters) put(rc *Converter) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.free = append(cs.free, rc)
}

// Batch reads the positions of rec's @incr rows and keeps those after skip
// (delivered before a restart or retry; nil for none). The batch holds its
// own reference to rec until the merge has converted its rows; a batch
// with no rows holds none. A row whose position cannot be read, or whose
// op code is not one of @incr's, fails the batch with a PermanentError.
func (cs *Converters) Batch(rec arrow.RecordBatch, skip *checkpoint.Pos) (*Batch, error) {
	rc := cs.get()
	defer cs.put(rc)
	if err := rc.Bind(rec); err != nil {
		return nil, err
	}
	n := int(rec.NumRows())
	b := &Batch{conv: cs, Pos: make([]checkpoint.Pos, 0, n), rows: make([]int, 0, n)}
	for i := range n {
		pos, err := rc.binlogPos(i)
		if err != nil {
			return nil, err
		}
		if skip != nil && !skip.Less(pos) {
			continue
		}
		b.Pos = append(b.Pos, pos)
		b.rows = append(b.rows, i)
	}
	if len(b.Pos) > 0 {
		rec.Retain()
		b.rec = rec
		b.refs.Store(1)
	}
	return b, nil
}

// Bytes is the size of the Arrow buffers the batch holds: what it costs
// while it waits for the merge.
func (b *Batch) Bytes() int64 {
	if b.rec == nil {
		return 0
	}
	var n int64
	for _, col := range b.rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

// dataBytes adds up an array's buffers, its children's and its
// dictionary's (arrow/util's TotalRecordSize would pull in a dependency
// for protobuf reflection).
func dataBytes(d arrow.ArrayData) int64 {
	if d == nil {
		return 0
	}
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		// Only a dictionary array has one: elsewhere Dictionary is a typed nil.
		n += dataBytes(d.Dictionary())
	}
	return n
}

// Release lets go of a batch the merge never took.
func (b *Batch) Release() {
	if b.Len() > 0 {
		b.release()
	}
}
