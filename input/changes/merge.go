package changes

import (
	"container/heap"
	"context"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// OpCounts counts a batch's rows per op code, and merged updates
// (binlog_merge_updates) in the extra last slot.
type OpCounts = [5]int64

// countNames names OpCounts' slots as the operation metadata does.
var countNames = [5]string{opNames[0], opNames[1], opNames[2], opNames[3], operationUpdate}

// CountName is the operation metadata value that slot of OpCounts counts.
func CountName(slot int) string { return countNames[slot] }

// EmitFunc hands a merged batch on with the position of its last row and
// the row counts per table.
type EmitFunc func(msgs []*service.Message, last checkpoint.Pos, counts map[string]*OpCounts) error

// Source is one table's part of a window: its converted batches, each in
// position order and each after the one before.
type Source interface {
	// Next blocks for the next batch. It returns ok false once the source
	// is done, with the failure that ended it, if any; and ctx's cause once
	// ctx is done.
	Next(ctx context.Context) (res Result, ok bool, err error)
}

// Merge is a k-way merge of the sources' ordered rows into batches of at
// most maxRows, in (TSO, table, LSN, OP) order: a transaction that changed
// several tables comes out as one run of rows. Only each source's current
// batch is held, so memory does not grow with the window. A failed source
// ends the merge with its error, and nothing that is not yet emitted is:
// the rows after the failure are never handed on.
func Merge[S Source](ctx context.Context, srcs []S, maxRows int, merging bool, emit EmitFunc) error {
	m := &merger{maxRows: maxRows, emit: emit, merging: merging, counts: map[string]*OpCounts{}}
	for _, s := range srcs {
		if err := m.pull(ctx, &cursor{src: s}); err != nil {
			return err
		}
	}
	for m.h.Len() > 0 {
		c := m.h[0]
		if m.h.Len() == 1 {
			// One table left: the rest of its batch goes as it is.
			m.takeRest(c)
		} else {
			m.take(c)
		}
		if len(m.buf) >= maxRows {
			if err := m.flush(); err != nil {
				return err
			}
		}
		if c.i < len(c.res.Msgs) {
			heap.Fix(&m.h, 0)
			continue
		}
		heap.Pop(&m.h)
		if err := m.pull(ctx, c); err != nil {
			return err
		}
	}
	return m.flush()
}

// cursor is a source's current batch and the next row of it.
type cursor struct {
	src Source
	res Result
	i   int
}

func (c *cursor) head() checkpoint.Pos { return c.res.Pos[c.i] }

type merger struct {
	h       cursorHeap
	maxRows int
	emit    EmitFunc
	buf     []*service.Message
	last    checkpoint.Pos
	merging bool // binlog_merge_updates: a UA may stand for a whole update
	counts  map[string]*OpCounts

	// The counts of the table of the previous row: rows come in runs of
	// one table, so most rows need no map lookup.
	lastTable string
	lastOps   *OpCounts
}

// pull loads c's next batch and puts it back on the heap; a finished
// source leaves, a failed one fails the merge. An empty batch has no head
// to order by and is passed over.
func (m *merger) pull(ctx context.Context, c *cursor) error {
	for {
		res, ok, err := c.src.Next(ctx)
		if err != nil || !ok {
			return err
		}
		if len(res.Msgs) > 0 {
			c.res, c.i = res, 0
			heap.Push(&m.h, c)
			return nil
		}
	}
}

func (m *merger) take(c *cursor) {
	m.add(c.res.Msgs[c.i], c.res.Pos[c.i])
	c.i++
}

func (m *merger) takeRest(c *cursor) {
	for c.i < len(c.res.Msgs) && len(m.buf) < m.maxRows {
		m.take(c)
	}
}

func (m *merger) add(msg *service.Message, pos checkpoint.Pos) {
	m.buf = append(m.buf, msg)
	m.last = pos
	ops := m.lastOps
	if ops == nil || pos.Table != m.lastTable {
		if ops = m.counts[pos.Table]; ops == nil {
			ops = &OpCounts{}
			m.counts[pos.Table] = ops
		}
		m.lastTable, m.lastOps = pos.Table, ops
	}
	if m.merging && pos.Op == opUpdateAfter {
		// A merged update is a UA message with a before-image.
		if _, merged := msg.MetaGetMut(metaBefore); merged {
			ops[len(ops)-1]++
			return
		}
	}
	ops[pos.Op]++
}

func (m *merger) flush() error {
	if len(m.buf) == 0 {
		return nil
	}
	if err := m.emit(m.buf, m.last, m.counts); err != nil {
		return err
	}
	m.buf = make([]*service.Message, 0, m.maxRows)
	m.counts, m.lastOps = map[string]*OpCounts{}, nil
	return nil
}

// cursorHeap orders cursors by their head row.
type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return h[i].head().Less(h[j].head()) }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
