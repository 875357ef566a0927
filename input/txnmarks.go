package input

import (
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/changes"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// txnMarks puts include_transaction_markers' begin and commit markers
// around each transaction (the rows of one commit TSO) of one window read.
// The merge delivers a window's rows in (TSO, table, LSN, OP) order, so a
// transaction is one run of rows, and a TSO belongs to the one window that
// holds its commit time: a transaction ends where the next row has another
// TSO or where its window ends.
//
// Markers keep the changes' delivery guarantee because the position a
// batch carries never stands inside a transaction: a batch that ends
// inside one carries the position of the last transaction it completed
// (or none), so the checkpoint only ever holds the last row of a whole
// transaction. A restart then reads an unfinished transaction again from
// its first row and sends its begin again: downstream, the last begin of
// a TSO is followed by all of its changes and its commit. The checkpoint
// keeps its one (TSO, table, LSN, OP) order; markers have no position of
// their own in it.
type txnMarks struct {
	phase string // doris_phase of the read's rows: "" or catch-up

	open   bool
	tso    int64
	tables []txmarkers.TableCount // in delivery order: runs of one table
	last   checkpoint.Pos         // the open transaction's last row
}

func newTxnMarks(catchUp bool) *txnMarks {
	if catchUp {
		return &txnMarks{phase: changes.PhaseCatchUp}
	}
	return &txnMarks{}
}

// wrap puts markers into one merged batch (msgs at positions pos) and
// returns the batch to emit and the last row of the last transaction it
// completes, nil when it completes none.
func (t *txnMarks) wrap(msgs []*service.Message, pos []checkpoint.Pos) (out []*service.Message, done *checkpoint.Pos) {
	out = make([]*service.Message, 0, len(msgs)+2)
	for i, m := range msgs {
		p := pos[i]
		if t.open && p.TSO != t.tso {
			c, last := t.commit()
			out, done = append(out, c), &last
		}
		if !t.open {
			out = append(out, txmarkers.NewBegin(p.TSO, t.phase))
			t.open, t.tso, t.tables = true, p.TSO, nil
		}
		if n := len(t.tables); n == 0 || t.tables[n-1].Table != p.Table {
			t.tables = append(t.tables, txmarkers.TableCount{Table: p.Table})
		}
		t.tables[len(t.tables)-1].EventCount++
		t.last = p
		out = append(out, m)
	}
	return out, done
}

// commit closes the open transaction: its commit marker and its last row.
func (t *txnMarks) commit() (*service.Message, checkpoint.Pos) {
	t.open = false
	return txmarkers.NewCommit(t.tso, t.phase, t.tables), t.last
}

// finish closes the transaction still open at the end of the window, if
// any.
func (t *txnMarks) finish() (msg *service.Message, last checkpoint.Pos, ok bool) {
	if !t.open {
		return nil, checkpoint.Pos{}, false
	}
	msg, last = t.commit()
	return msg, last, true
}
