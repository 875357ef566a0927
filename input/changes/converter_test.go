package changes

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

func metaOf(t *testing.T, m interface {
	MetaGetMut(string) (any, bool)
}, key string) any {
	t.Helper()
	v, ok := m.MetaGetMut(key)
	if !ok {
		t.Fatalf("metadata %s missing", key)
	}
	return v
}

func TestSnapshotMessageMetadataIsPerMessage(t *testing.T) {
	rc, rec := benchConverter(t, false)
	defer rec.Release()
	a, err := rc.SnapshotMessage(0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rc.SnapshotMessage(1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{metaOperation: "read", metaDatabase: "shop", metaTable: "orders"}
	for _, k := range []string{metaTSO, metaLSN, metaCommitTS, metaSourceTS, metaTransactionID} {
		if _, ok := a.MetaGetMut(k); ok {
			t.Errorf("a snapshot row carries the binlog key %s", k)
		}
	}
	if v, ok := a.MetaGetImmut("schema"); !ok || v == nil {
		t.Error("a snapshot row lacks the schema")
	}
	for k, v := range want {
		if got := metaOf(t, a, k); got != v {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	// Messages share their metadata until written: a processor changing one
	// message must not change another.
	a.MetaSetMut(metaOperation, "changed")
	a.MetaDelete(metaTable)
	if got := metaOf(t, b, metaOperation); got != "read" {
		t.Fatalf("writing one message's metadata changed another's: %v", got)
	}
	if got := metaOf(t, b, metaTable); got != "orders" {
		t.Fatalf("deleting one message's metadata changed another's: %v", got)
	}
	c, _ := rc.SnapshotMessage(2)
	if got := metaOf(t, c, metaOperation); got != "read" {
		t.Fatalf("later message got %v", got)
	}
	var body map[string]any
	raw, _ := b.AsBytes()
	if err := json.Unmarshal(raw, &body); err != nil || body["id"] != float64(1_000_001) {
		t.Fatalf("body of row 1: %s (%v)", raw, err)
	}
}

func TestBinlogMessageMetadata(t *testing.T) {
	rc, rec := benchConverter(t, true)
	defer rec.Release()
	for row := range 6 {
		pos, err := rc.binlogPos(row)
		if err != nil {
			t.Fatal(err)
		}
		if pos.Op != int8(row%4) || pos.LSN != int64(row%4) {
			t.Fatalf("row %d: pos %+v", row, pos)
		}
		msg, err := rc.binlogMessage(row, pos)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			metaOperation: opNames[row%4], metaDatabase: "shop", metaTable: "orders",
			metaTSO: pos.TSO, metaLSN: pos.LSN, metaCommitTS: benchBase.UnixMilli(), metaSourceTS: benchBase.UnixMilli(),
			metaTransactionID: strconv.FormatInt(pos.TSO, 10),
		}
		for k, v := range want {
			if got := metaOf(t, msg, k); got != v {
				t.Errorf("row %d: %s = %#v, want %#v", row, k, got, v)
			}
		}
		raw, _ := msg.AsBytes()
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil || len(body) != 12 {
			t.Fatalf("row %d body %s: %v", row, raw, err)
		}
	}
}

// A bulk transaction's rows past txTemplateRows come from a template that
// holds the TSO keys; each message must still carry its own lsn, the keys
// of its own TSO, and metadata of its own.
func TestBulkTransactionMessagesKeepTheirOwnKeys(t *testing.T) {
	rc, rec := benchConverterOf(t, true, bulkLoad)
	defer rec.Release()
	tsoA, tsoB := doris.Compose(1_000, 3), doris.Compose(1_001, 0)
	commitMs := map[int64]int64{tsoA: 1_000, tsoB: 1_001}
	rowsA := 4 * txTemplateRows
	var msgs []*service.Message
	var poss []checkpoint.Pos
	fromTemplate := 0
	for row := range rowsA + 4 {
		pos := checkpoint.Pos{TSO: tsoA, Table: "shop.orders", LSN: int64(row), Op: int8(row % 2 * 3)} // insert, update_after
		if row >= rowsA {
			pos.TSO = tsoB
		}
		had := rc.txTmpl[pos.Op] != nil && rc.boxedTSO == pos.TSO // this row copies it
		msg, err := rc.binlogMessage(row, pos)
		if err != nil {
			t.Fatal(err)
		}
		msgs, poss = append(msgs, msg), append(poss, pos)
		if had {
			fromTemplate++
		}
		if !had && rc.txTmpl[pos.Op] != nil {
			// The row that built the template; a processor writes to it
			// while later rows are built.
			msg.MetaSetMut(metaLSN, int64(-1))
			msg.MetaSetMut(metaTransactionID, "changed")
			poss[row] = checkpoint.Pos{TSO: -1}
		}
	}
	if rc.txTmpl[0] != nil || rc.txTmpl[3] != nil {
		t.Fatalf("the first transaction's templates outlived its TSO")
	}
	for i, msg := range msgs {
		pos := poss[i]
		if pos.TSO == -1 {
			continue
		}
		want := map[string]any{
			metaOperation: opNames[pos.Op], metaTSO: pos.TSO, metaLSN: pos.LSN, metaCommitTS: commitMs[pos.TSO],
			metaSourceTS: commitMs[pos.TSO], metaTransactionID: strconv.FormatInt(pos.TSO, 10),
		}
		for k, v := range want {
			if got := metaOf(t, msg, k); got != v {
				t.Errorf("message %d: %s = %#v, want %#v", i, k, got, v)
			}
		}
	}
	// Each op reached txTemplateRows after 2*txTemplateRows rows of tsoA;
	// the rest of tsoA's rows come from its template.
	if want := rowsA - 2*txTemplateRows; fromTemplate != want {
		t.Fatalf("%d messages came from a per-transaction template, want %d", fromTemplate, want)
	}
}

func TestBinlogMessageRejectsUnknownOp(t *testing.T) {
	rc, rec := benchConverter(t, true)
	defer rec.Release()
	for _, op := range []int8{-1, 4} {
		_, err := rc.binlogMessage(0, checkpoint.Pos{TSO: 1, Table: "shop.orders", Op: op})
		if err == nil {
			t.Errorf("op %d accepted", op)
		} else if !doris.IsPermanent(err) {
			// A retry reads the same op again: the window must stop the
			// input, not stall it until its binlog expires.
			t.Errorf("op %d: %v is not marked permanent", op, err)
		}
	}
}

// With debug_metadata, every binlog row carries the bounds of the window
// it was read in; without it, none does.
func TestDebugWindowMetadata(t *testing.T) {
	w := Window{Start: "2026-12-01 10:00:00", End: "2026-12-01 10:00:05"}
	debug := func() *Converter {
		rc := testConverter("t")()
		rc.DebugWindow = &w
		return rc
	}
	rows := []change{{ms: t0, id: 1}, {ms: t0 + 1, op: 1, id: 2}}
	for _, c := range []struct {
		name string
		rc   func() *Converter
		want bool
	}{{"debug", debug, true}, {"plain", testConverter("t"), false}} {
		mem := memory.NewGoAllocator()
		rec := incrRecord(t, mem, rows...)
		b, err := NewConverters(c.rc).Batch(rec, nil)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		ch := newChunk()
		ch.add(b, 0, b.Len())
		b.release()
		ch.convert(context.Background())
		res := Result{Msgs: ch.msgs, Pos: b.Pos}
		if ch.err != nil || len(res.Msgs) != len(rows) {
			t.Fatalf("%s: %d messages, %v", c.name, len(res.Msgs), ch.err)
		}
		for i, msg := range res.Msgs {
			start, hasStart := msg.MetaGet(metaWindowStart)
			end, hasEnd := msg.MetaGet(metaWindowEnd)
			if !c.want {
				if hasStart || hasEnd {
					t.Errorf("%s row %d carries the window [%s, %s)", c.name, i, start, end)
				}
				continue
			}
			if start != w.Start || end != w.End {
				t.Errorf("%s row %d carries the window [%s, %s), want [%s, %s)", c.name, i, start, end, w.Start, w.End)
			}
		}
	}
}

// A catch-up read's rows say so (doris_phase), whatever their op; the
// chain's rows carry no such key.
func TestCatchUpRowsCarryTheirPhase(t *testing.T) {
	catchUp := func() *Converter {
		rc := testConverter("t")()
		rc.CatchUp = true
		return rc
	}
	rows := []change{{ms: t0, id: 1}, {ms: t0 + 1, op: 1, id: 2}, {ms: t0 + 2, op: 3, id: 3}}
	for _, c := range []struct {
		name string
		rc   func() *Converter
		want bool
	}{{"catch-up", catchUp, true}, {"chain", testConverter("t"), false}} {
		rec := incrRecord(t, memory.NewGoAllocator(), rows...)
		b, err := NewConverters(c.rc).Batch(rec, nil)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		ch := newChunk()
		ch.add(b, 0, b.Len())
		b.release()
		ch.convert(context.Background())
		if ch.err != nil || len(ch.msgs) != len(rows) {
			t.Fatalf("%s: %d messages, %v", c.name, len(ch.msgs), ch.err)
		}
		for i, msg := range ch.msgs {
			v, ok := msg.MetaGet(metaPhase)
			if c.want && v != PhaseCatchUp || !c.want && ok {
				t.Errorf("%s row %d: doris_phase %q (set %v)", c.name, i, v, ok)
			}
		}
	}
}
