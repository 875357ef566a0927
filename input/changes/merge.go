package changes

import (
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

// EmitFunc hands a merged batch on with the position of each message (the
// last is the batch's) and the row counts per table.
type EmitFunc func(msgs []*service.Message, pos []checkpoint.Pos, counts map[string]*OpCounts) error

// Source is one table's part of a window: its batches, each in position
// order and each after the one before.
type Source interface {
	// Next blocks for the next batch. It returns ok false once the source
	// is done, with the failure that ended it, if any; and ctx's cause once
	// ctx is done.
	Next(ctx context.Context) (b *Batch, ok bool, err error)
}

// Result is a run of converted rows: their messages and positions, in
// order.
type Result struct {
	Msgs []*service.Message
	Pos  []checkpoint.Pos
}

// MergeOptions shape a merge's batches and its conversion.
type MergeOptions struct {
	// MaxRows is the most rows per emitted batch; with a Pairer one more
	// when the batch would end on an update_before whose update_after
	// follows, so that the halves go out as one message in one batch.
	MaxRows int
	Workers int     // goroutines converting rows; 0 for Workers()
	Pairer  *Pairer // binlog_merge_updates; nil leaves the halves apart
}

// Merge is a k-way merge of the sources' ordered rows into batches of at
// most MaxRows, in (TSO, table, LSN, OP) order: a transaction that changed
// several tables comes out as one run of rows. Rows are ordered by their
// positions and converted afterwards, on Workers goroutines, so only
// what is emitted is converted and a window's memory holds a few emitted
// batches and each table's current Arrow batch, however many tables it
// reads. A failed source ends the merge with its error, and nothing that
// is not yet complete is emitted: the rows after the failure are never
// handed on.
func Merge[S Source](ctx context.Context, srcs []S, opt MergeOptions, emit EmitFunc) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	workers := opt.Workers
	if workers <= 0 {
		workers = Workers()
	}
	cv := startConverters(ctx, workers)
	plans := make(chan *plan, workers)
	o := &orderer{
		maxRows:   opt.MaxRows,
		chunkRows: chunkRowsFor(opt.MaxRows, workers),
		plan:      &plan{},
		submit:    func(ch *chunk) error { return cv.submit(ctx, ch) },
		pairs:     opt.Pairer != nil,
		done: func(p *plan) error {
			select {
			case plans <- p:
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		},
	}
	sources := make([]Source, len(srcs))
	for i, s := range srcs {
		sources[i] = s
	}
	orderErr := make(chan error, 1)
	go func() {
		defer close(plans)
		orderErr <- o.run(ctx, sources)
	}()
	e := &emission{emit: emit, pairer: opt.Pairer}
	err := e.all(ctx, plans)
	if err != nil {
		cancel(err)
	}
	for range plans {
		// Wait for the orderer to stop; the workers release what it queued.
	}
	cv.stop()
	if err != nil {
		return err
	}
	return <-orderErr
}

// emission hands the merge's plans on in order, once converted, with the
// update pairs merged.
type emission struct {
	emit   EmitFunc
	pairer *Pairer
}

func (e *emission) all(ctx context.Context, plans <-chan *plan) error {
	for p := range plans {
		res := Result{Msgs: make([]*service.Message, 0, p.rows), Pos: make([]checkpoint.Pos, 0, p.rows)}
		for _, ch := range p.chunks {
			msgs, err := ch.wait(ctx)
			if err != nil {
				return err
			}
			res.Msgs = append(res.Msgs, msgs...)
			for _, s := range ch.segs {
				res.Pos = append(res.Pos, s.b.Pos[s.from:s.to]...)
			}
		}
		if err := e.hand(res); err != nil {
			return err
		}
	}
	return nil
}

func (e *emission) hand(res Result) error {
	if e.pairer != nil {
		merged, err := e.pairer.Merge(res)
		if err != nil {
			return err
		}
		res = merged
	}
	if len(res.Msgs) == 0 {
		return nil
	}
	return e.emit(res.Msgs, res.Pos, e.count(res))
}

// count counts res's rows per table and op. Rows come in runs of one
// table, so most rows need no map lookup.
func (e *emission) count(res Result) map[string]*OpCounts {
	counts := map[string]*OpCounts{}
	var lastTable string
	var ops *OpCounts
	for i, pos := range res.Pos {
		if ops == nil || pos.Table != lastTable {
			if ops = counts[pos.Table]; ops == nil {
				ops = &OpCounts{}
				counts[pos.Table] = ops
			}
			lastTable = pos.Table
		}
		if e.pairer != nil && pos.Op == opUpdateAfter {
			// A merged update is a UA message with a before-image.
			if _, merged := res.Msgs[i].MetaGetMut(metaBefore); merged {
				ops[len(ops)-1]++
				continue
			}
		}
		ops[pos.Op]++
	}
	return counts
}
