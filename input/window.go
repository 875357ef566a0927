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
	rc      *rowConverter
	buf     []*service.Message
	last    checkpoint.RowPos
	ops     [4]int64
}

func newWindowBatcher(r *reader, g *generation, batcher *service.Batcher, w *window) *windowBatcher {
	opts := rowjson.Options{Binlog: true, DatetimePrecision: r.datetimePrecision(g.conn)}
	return &windowBatcher{r: r, g: g, batcher: batcher, w: w, rc: newRowConverter(r.conf, opts)}
}

func (wb *windowBatcher) record(rec arrow.RecordBatch) error {
	if err := wb.rc.bind(rec); err != nil {
		return err
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		pos, err := wb.rc.binlogPos(i)
		if err != nil {
			return err
		}
		if wb.w.last != nil && !wb.w.last.Less(pos) {
			continue // delivered before a restart or retry
		}
		msg, err := wb.rc.binlogMessage(i, pos, wb.w)
		if err != nil {
			return err
		}
		wb.buf = append(wb.buf, msg)
		wb.last = pos
		wb.ops[pos.Op]++
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
