package changes

import (
	"encoding/json"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

func pairMsg(op int8, body string) *service.Message {
	m := service.NewMessage([]byte(body))
	m.MetaSetMut(metaOperation, opNames[op])
	return m
}

func pairBatch(rows ...any) Result {
	var res Result
	for i := 0; i+2 < len(rows)+1; i += 3 {
		pos := checkpoint.Pos{TSO: rows[i].(int64), Table: "d.t", LSN: 1, Op: rows[i+1].(int8)}
		res.Pos = append(res.Pos, pos)
		res.Msgs = append(res.Msgs, pairMsg(pos.Op, rows[i+2].(string)))
	}
	return res
}

// A UB directly followed by its UA in one batch becomes one update at the
// UA's position; a UA alone, and a UB that ends the batch, go out unmerged
// at once: nothing is held into the next batch, whose boundaries would then
// move.
func TestUpdatePairerWithinABatch(t *testing.T) {
	var halves []checkpoint.Pos
	p := NewPairer(func(pos checkpoint.Pos, _ string) { halves = append(halves, pos) })
	b1, err := p.Merge(pairBatch(int64(10), int8(0), `{"id":1}`,
		int64(20), int8(2), `{"id":1,"v":170141183460469231731687303715884105727}`, int64(20), int8(3), `{"id":1,"v":2}`,
		int64(30), int8(3), `{"id":2,"v":3}`, int64(40), int8(2), `{"id":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(b1.Msgs) != 4 || b1.Pos[1] != (checkpoint.Pos{TSO: 20, Table: "d.t", LSN: 1, Op: 3}) || b1.Pos[3].TSO != 40 {
		t.Fatalf("positions %v, want the insert, the merged update at the UA's position, the lone UA and the lone UB", b1.Pos)
	}
	m := b1.Msgs[1]
	if op, _ := m.MetaGet(metaOperation); op != "update" {
		t.Errorf("operation %q, want update", op)
	}
	if body, _ := m.AsBytes(); string(body) != `{"id":1,"v":2}` {
		t.Errorf("body %s, want the after-image", body)
	}
	before, ok := m.MetaGetMut(metaBefore)
	if !ok {
		t.Fatal("no before metadata")
	}
	if v := before.(map[string]any)["v"]; v != json.Number("170141183460469231731687303715884105727") {
		t.Errorf("before.v = %#v, want the exact LARGEINT", v)
	}
	for i, want := range map[int]string{2: "update_after", 3: "update_before"} {
		if op, _ := b1.Msgs[i].MetaGet(metaOperation); op != want {
			t.Errorf("lone half %d has operation %q, want %q", i, op, want)
		}
	}
	if len(halves) != 2 || halves[0].TSO != 30 || halves[1].TSO != 40 {
		t.Fatalf("unpaired halves %v, want TSO 30 (UA alone) and 40 (UB alone)", halves)
	}
	// The next batch starting with the UA of TSO 40 does not merge it: the
	// UB went out already.
	b2, err := p.Merge(pairBatch(int64(40), int8(3), `{"id":3,"v":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if op, _ := b2.Msgs[0].MetaGet(metaOperation); len(b2.Msgs) != 1 || op != "update_after" || len(halves) != 3 {
		t.Fatalf("batch 2 = %v (%q), unpaired %v; want the lone UA", b2.Pos, op, halves)
	}
}

// A UB followed by another row than its UA is delivered as it is, ahead of
// that row.
func TestUpdatePairerMismatch(t *testing.T) {
	n := 0
	p := NewPairer(func(checkpoint.Pos, string) { n++ })
	res, err := p.Merge(pairBatch(int64(5), int8(2), `{"id":1}`, int64(6), int8(0), `{"id":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Msgs) != 2 || res.Pos[0].Op != 2 || res.Pos[1].Op != 0 || n != 1 {
		t.Fatalf("positions %v, unpaired %d", res.Pos, n)
	}
	if _, err := p.Merge(pairBatch(int64(7), int8(2), `not json`, int64(7), int8(3), `{}`)); err == nil {
		t.Fatal("a malformed before-image must fail")
	}
}

// BenchmarkMergeUpdates is the cost binlog_merge_updates adds per update:
// parsing the before-image into the `before` object.
func BenchmarkMergeUpdates(b *testing.B) {
	const img = `{"id":123456,"name":"customer-123456","qty":17,"amount":"1234.50","status":"paid","at":"2026-09-14 10:05:06.789"}`
	p := NewPairer(func(checkpoint.Pos, string) {})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		res := Result{
			Msgs: []*service.Message{pairMsg(2, img), pairMsg(3, img)},
			Pos:  []checkpoint.Pos{{TSO: int64(i), Table: "d.t", LSN: 1, Op: 2}, {TSO: int64(i), Table: "d.t", LSN: 1, Op: 3}},
		}
		if _, err := p.Merge(res); err != nil {
			b.Fatal(err)
		}
	}
}
