package changes

import (
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

// convertAll converts each batch of rows of table db.name in a pool of
// workers, as a window's read does, and returns the results in order.
func convertAll(tb testing.TB, name string, workers int, skip *checkpoint.Pos, batches ...[]change) []Result {
	tb.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	pool := NewPool(testConverter(name), workers, skip)
	jobs := make([]*Job, 0, len(batches))
	for _, rows := range batches {
		rec := incrRecord(tb, mem, rows...)
		jobs = append(jobs, pool.Submit(rec))
		rec.Release() // the pool holds its own reference until converted
	}
	out := make([]Result, 0, len(jobs))
	for _, j := range jobs {
		res := j.Wait()
		if res.Err != nil {
			tb.Fatal(res.Err)
		}
		out = append(out, res)
	}
	pool.Close()
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
