package changes

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/changes/changestest"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

// change is one @incr row of a test table: its position and the id its
// body carries.
type change struct {
	ms, logical int64 // the TSO's parts
	lsn         int64
	op          int8
	id          int64
}

func (c change) tso() int64 { return doris.Compose(c.ms, c.logical) }

// incrRecord is an @incr result batch of rows, as Doris sends it: the
// table's columns and the three hidden binlog columns.
func incrRecord(tb testing.TB, mem memory.Allocator, rows ...change) arrow.RecordBatch {
	tb.Helper()
	in := make([]changestest.IncrRow, len(rows))
	for i, r := range rows {
		in[i] = changestest.IncrRow{TSO: r.tso(), LSN: r.lsn, Op: r.op, ID: r.id}
	}
	return changestest.IncrRecord(mem, in...)
}

// testConverter converts binlog rows of db.name, without schema metadata.
func testConverter(name string) func() *Converter {
	return func() *Converter {
		return NewConverter(Table{DB: "db", Name: name, Key: "db." + name}, rowjson.Options{Binlog: true}, nil)
	}
}

// batchesOf reads each batch of rows of table db.name as a window's source
// does: the rows after skip, by position, not yet converted. mem's
// allocations are released once the batches are.
func batchesOf(tb testing.TB, mem memory.Allocator, name string, skip *checkpoint.Pos, batches ...[]change) []*Batch {
	tb.Helper()
	cs := NewConverters(testConverter(name))
	out := make([]*Batch, 0, len(batches))
	for _, rows := range batches {
		rec := incrRecord(tb, mem, rows...)
		b, err := cs.Batch(rec, skip)
		rec.Release() // the batch holds its own reference while it has rows
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// convertAll converts each batch of rows of table db.name on workers
// goroutines, as a window's merge does, and returns the results in order.
func convertAll(tb testing.TB, name string, workers int, skip *checkpoint.Pos, batches ...[]change) []Result {
	tb.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	ctx := context.Background()
	cv := startConverters(ctx, workers)
	var chunks []*chunk
	var pos [][]checkpoint.Pos
	for _, b := range batchesOf(tb, mem, name, skip, batches...) {
		ch := newChunk()
		if b.Len() > 0 {
			ch.add(b, 0, b.Len())
			b.release() // the chunk holds it now
		}
		if err := cv.submit(ctx, ch); err != nil {
			tb.Fatal(err)
		}
		chunks, pos = append(chunks, ch), append(pos, b.Pos)
	}
	out := make([]Result, 0, len(chunks))
	for i, ch := range chunks {
		msgs, err := ch.wait(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, Result{Msgs: msgs, Pos: pos[i]})
	}
	cv.stop()
	mem.AssertSize(tb, 0)
	return out
}

// bodyID is the id in a message's JSON body.
func bodyID(tb testing.TB, msg *service.Message) int64 {
	tb.Helper()
	raw, err := msg.AsBytes()
	if err != nil {
		tb.Fatal(err)
	}
	var body struct{ ID int64 }
	if err := json.Unmarshal(raw, &body); err != nil {
		tb.Fatalf("body %s: %v", raw, err)
	}
	return body.ID
}

// metaString is a message's metadata value key as text.
func metaString(tb testing.TB, msg *service.Message, key string) string {
	tb.Helper()
	v, ok := msg.MetaGet(key)
	if !ok {
		tb.Fatalf("metadata %s missing", key)
	}
	return v
}
