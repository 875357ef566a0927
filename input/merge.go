package input

import (
	"container/heap"
	"context"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// opCounts counts a batch's rows per op code, and merged updates
// (binlog_merge_updates) in the extra last slot.
type opCounts = [5]int64

// countNames names opCounts' slots as the operation metadata does.
var countNames = [5]string{opNames[0], opNames[1], opNames[2], opNames[3], operationUpdate}

// emitFunc hands a merged batch on with the position of its last row and
// the row counts per table.
type emitFunc func(msgs []*service.Message, last checkpoint.Pos, counts map[string]*opCounts) error

// mergeSources is a k-way merge of the sources' ordered rows into batches
// of at most maxRows, in (TSO, table, LSN, OP) order: a transaction that
// changed several tables comes out as one run of rows. Only each source's
// current converted batch is held, so memory does not grow with the window.
func mergeSources(ctx context.Context, srcs []*windowSource, maxRows int, merging bool, emit emitFunc) error {
	m := &merger{maxRows: maxRows, emit: emit, merging: merging, counts: map[string]*opCounts{}}
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
		if c.i < len(c.res.msgs) {
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
	src *windowSource
	res convResult
	i   int
}

func (c *cursor) head() checkpoint.Pos { return c.res.pos[c.i] }

type merger struct {
	h       cursorHeap
	maxRows int
	emit    emitFunc
	buf     []*service.Message
	last    checkpoint.Pos
	merging bool // binlog_merge_updates: a UA may stand for a whole update
	counts  map[string]*opCounts

	// The counts of the table of the previous row: rows come in runs of
	// one table, so most rows need no map lookup.
	lastTable string
	lastOps   *opCounts
}

// pull loads c's next batch and puts it back on the heap; a finished
// source leaves, a failed one fails the merge.
func (m *merger) pull(ctx context.Context, c *cursor) error {
	select {
	case res, open := <-c.src.out:
		if !open {
			c.src.wait()
			return c.src.err
		}
		c.res, c.i = res, 0
		heap.Push(&m.h, c)
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (m *merger) take(c *cursor) {
	m.add(c.res.msgs[c.i], c.res.pos[c.i])
	c.i++
}

func (m *merger) takeRest(c *cursor) {
	for c.i < len(c.res.msgs) && len(m.buf) < m.maxRows {
		m.take(c)
	}
}

func (m *merger) add(msg *service.Message, pos checkpoint.Pos) {
	m.buf = append(m.buf, msg)
	m.last = pos
	ops := m.lastOps
	if ops == nil || pos.Table != m.lastTable {
		if ops = m.counts[pos.Table]; ops == nil {
			ops = &opCounts{}
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
	m.counts, m.lastOps = map[string]*opCounts{}, nil
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
