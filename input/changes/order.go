package changes

import (
	"container/heap"
	"context"
	"sort"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// plan is one batch to emit: its rows in merge order, cut into conversion
// chunks.
type plan struct {
	chunks []*chunk
	rows   int
}

// orderer is the k-way merge on positions alone. It hands out whole runs
// of one table's rows, those before every other table's next row, so a
// window whose tables' changes come in long runs costs a heap operation
// per run, not per row.
type orderer struct {
	h         cursorHeap
	maxRows   int
	chunkRows int
	plan      *plan
	cur       *chunk // the chunk being filled, not yet submitted
	submit    func(*chunk) error
	done      func(*plan) error
	// pairs keeps an update's halves in one plan (binlog_merge_updates):
	// a plan that fills on an update_before takes its update_after too,
	// one row past maxRows, so that where plans end depends only on the
	// rows from the window's start or the committed position, as a
	// restart needs to cut the same batches again (see Pairer).
	pairs bool
	// openUB is the update_before that filled the plan, while the next
	// row is not yet known: the plan ends before that row unless it is
	// the update_after.
	openUB *checkpoint.Pos
}

// cursor is a source's current batch and the next row of it.
type cursor struct {
	src Source
	b   *Batch
	i   int
}

func (c *cursor) head() checkpoint.Pos { return c.b.Pos[c.i] }

// run orders the sources' rows into plans of at most maxRows rows, handing
// each chunk to submit as it fills and each plan to done once complete. A
// failed source ends it with that failure: the plan being filled is
// dropped, and no row of any source is taken after it.
func (o *orderer) run(ctx context.Context, srcs []Source) error {
	defer o.releaseAll()
	for _, s := range srcs {
		if err := o.pull(ctx, &cursor{src: s}); err != nil {
			return err
		}
	}
	for o.h.Len() > 0 {
		c := o.h[0]
		end, err := o.nextEnd(c)
		if err != nil {
			return err
		}
		if err := o.take(c, end); err != nil {
			return err
		}
		if c.i < c.b.Len() {
			heap.Fix(&o.h, 0)
			continue
		}
		heap.Pop(&o.h)
		c.b.release()
		c.b = nil
		if err := o.pull(ctx, c); err != nil {
			return err
		}
	}
	return o.finishPlan()
}

// nextEnd is where the rows to take from c next end: after c's head
// alone when it is the update_after of the update_before that filled the
// plan, else where c's run ends, in a new plan if the full one waited for
// an update_after that does not come.
func (o *orderer) nextEnd(c *cursor) (int, error) {
	if ub := o.openUB; ub != nil {
		o.openUB = nil
		if isUpdateAfterOf(c.head(), *ub) {
			return c.i + 1, nil
		}
		if err := o.finishPlan(); err != nil {
			return 0, err
		}
	}
	return o.runEnd(c), nil
}

// isUpdateAfterOf tells whether p is the update_after of the update_before
// at ub: the halves share TSO, table and LSN.
func isUpdateAfterOf(p, ub checkpoint.Pos) bool {
	return p.Op == opUpdateAfter && p.TSO == ub.TSO && p.Table == ub.Table && p.LSN == ub.LSN
}

// runEnd is where c's run ends: at the first row that does not come before
// the next head of another source (the smaller of the root's children), or
// where the plan is full.
func (o *orderer) runEnd(c *cursor) int {
	end := min(c.b.Len(), c.i+o.maxRows-o.rows())
	if o.h.Len() == 1 {
		return end
	}
	next := o.h[1].head()
	if o.h.Len() > 2 && o.h[2].head().Less(next) {
		next = o.h[2].head()
	}
	pos := c.b.Pos
	// c is the heap's least, so its head comes first; at least that row
	// is taken even if another source repeated its position.
	return c.i + max(1, sort.Search(end-c.i, func(k int) bool { return !pos[c.i+k].Less(next) }))
}

func (o *orderer) rows() int {
	n := o.plan.rows
	if o.cur != nil {
		n += o.cur.rows
	}
	return n
}

// take adds rows [c.i, end) of c's batch to the plan.
func (o *orderer) take(c *cursor, end int) error {
	for c.i < end {
		if o.cur == nil {
			o.cur = newChunk()
		}
		n := min(end-c.i, o.chunkRows-o.cur.rows)
		o.cur.add(c.b, c.i, c.i+n)
		c.i += n
		if o.cur.rows == o.chunkRows || o.rows() >= o.maxRows {
			if err := o.submitChunk(); err != nil {
				return err
			}
		}
		if o.plan.rows >= o.maxRows {
			if last := c.b.Pos[c.i-1]; o.pairs && last.Op == opUpdateBefore && o.plan.rows == o.maxRows {
				o.openUB = &last // the next row decides (nextEnd)
				continue
			}
			if err := o.finishPlan(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (o *orderer) submitChunk() error {
	ch := o.cur
	o.cur = nil
	o.plan.chunks = append(o.plan.chunks, ch)
	o.plan.rows += ch.rows
	return o.submit(ch)
}

// finishPlan hands the plan on, if it holds rows, and starts the next.
func (o *orderer) finishPlan() error {
	if o.cur != nil {
		if err := o.submitChunk(); err != nil {
			return err
		}
	}
	p := o.plan
	o.plan = &plan{}
	if p.rows == 0 {
		return nil
	}
	return o.done(p)
}

// pull loads c's next batch and puts it back on the heap; a finished
// source leaves, a failed one fails the merge. An empty batch has no head
// to order by and is passed over.
func (o *orderer) pull(ctx context.Context, c *cursor) error {
	for {
		b, ok, err := c.src.Next(ctx)
		if err != nil || !ok {
			return err
		}
		if b.Len() > 0 {
			c.b, c.i = b, 0
			heap.Push(&o.h, c)
			return nil
		}
	}
}

// releaseAll lets go of the batches still under a cursor, and of the rows
// of a chunk that was never submitted.
func (o *orderer) releaseAll() {
	for _, c := range o.h {
		c.b.release()
	}
	o.h = nil
	if o.cur != nil {
		o.cur.releaseAll()
		o.cur = nil
	}
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
