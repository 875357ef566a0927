package input

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

// windowBatcher turns one @incr result into batches. Each batch's state
// records its last row, so a restart inside the window re-reads the window
// and skips exactly what was delivered.
type windowBatcher struct {
	r       *reader
	g       *generation
	batcher *service.Batcher
	w       *window
	pool    *convPool
	queue   []*convJob // submitted batches, oldest first
	buf     []*service.Message
	last    checkpoint.RowPos
	ops     [4]int64
}

func newWindowBatcher(r *reader, g *generation, batcher *service.Batcher, w *window) *windowBatcher {
	opts := rowjson.Options{Binlog: true, DatetimePrecision: r.datetimePrecision(g.conn)}
	newRC := func() *rowConverter { return newRowConverter(r.conf, opts) }
	return &windowBatcher{r: r, g: g, batcher: batcher, w: w, pool: newConvPool(newRC, *w, w.last)}
}

// record hands a batch to the conversion pool and emits what is ready.
// Waiting for the oldest batch once the queue is full is the back-pressure
// that keeps a window's memory bounded.
func (wb *windowBatcher) record(rec arrow.RecordBatch) error {
	wb.queue = append(wb.queue, wb.pool.submit(rec))
	for len(wb.queue) >= cap(wb.pool.jobs) {
		if err := wb.absorbOldest(); err != nil {
			return err
		}
	}
	return nil
}

// finish emits every converted batch left, then the buffered rows.
func (wb *windowBatcher) finish() error {
	for len(wb.queue) > 0 {
		if err := wb.absorbOldest(); err != nil {
			return err
		}
	}
	return wb.flush()
}

// close stops the pool; queued batches are released by its workers.
func (wb *windowBatcher) close() { wb.pool.close() }

func (wb *windowBatcher) absorbOldest() error {
	res := <-wb.queue[0].res
	wb.queue = wb.queue[1:]
	if res.err != nil {
		return res.err
	}
	for i, msg := range res.msgs {
		wb.buf = append(wb.buf, msg)
		wb.last = res.pos[i]
		wb.ops[res.pos[i].Op]++
		if len(wb.buf) >= wb.r.maxRows {
			if err := wb.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush emits the buffered rows. w.last moves only once they are handed
// over, so a failure re-reads exactly the rows that were not.
func (wb *windowBatcher) flush() error {
	if len(wb.buf) == 0 {
		return nil
	}
	last := wb.last
	st := checkpoint.State{
		Version:     stateVersion,
		Table:       wb.r.conf.DB + "." + wb.r.conf.Table,
		Phase:       phaseBinlog,
		WindowStart: wb.w.start,
		WindowEnd:   wb.w.end,
		Last:        &last,
	}
	if err := wb.r.emit(wb.g, wb.batcher, wb.buf, st); err != nil {
		return err
	}
	wb.w.last = &last
	for op, n := range wb.ops {
		if n > 0 {
			wb.r.m.rows.Incr(n, phaseBinlog, opNames[op])
		}
	}
	wb.ops = [4]int64{}
	wb.buf = make([]*service.Message, 0, wb.r.maxRows)
	return nil
}
