package input

import (
	"encoding/json"
	"testing"

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
	a, err := rc.snapshotMessage(0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rc.snapshotMessage(1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{metaOperation: "read", metaDatabase: "shop", metaTable: "orders", metaPhase: checkpoint.PhaseSnapshot}
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
	c, _ := rc.snapshotMessage(2)
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
	w := window{start: "2025-10-09 08:53:20", end: "2025-10-09 08:53:30"}
	for row := range 6 {
		pos, err := rc.binlogPos(row)
		if err != nil {
			t.Fatal(err)
		}
		if pos.Op != int8(row%4) || pos.LSN != int64(row%4) {
			t.Fatalf("row %d: pos %+v", row, pos)
		}
		if row == 4 {
			w = window{start: "2025-10-09 08:53:30", end: "2025-10-09 08:53:40"}
		}
		msg, err := rc.binlogMessage(row, pos, w)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			metaOperation: opNames[row%4], metaDatabase: "shop", metaTable: "orders", metaPhase: checkpoint.PhaseBinlog,
			metaOp: int64(row % 4), metaTSO: pos.TSO, metaLSN: pos.LSN, metaCommitTS: pos.TSO >> 18,
			metaWindowStart: w.start, metaWindowEnd: w.end,
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

func TestBinlogMessageRejectsUnknownOp(t *testing.T) {
	rc, rec := benchConverter(t, true)
	defer rec.Release()
	w := window{start: "a", end: "b"}
	for _, op := range []int8{-1, 4} {
		if _, err := rc.binlogMessage(0, checkpoint.Pos{TSO: 1, Table: "shop.orders", Op: op}, w); err == nil {
			t.Errorf("op %d accepted", op)
		}
	}
}
