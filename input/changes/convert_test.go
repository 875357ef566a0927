package changes

import (
	"runtime"
	"slices"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// inserts are n insert rows of one transaction each, from TSO ms on; ids
// count from id.
func inserts(ms int64, n int, id int64) []change {
	rows := make([]change, n)
	for i := range rows {
		rows[i] = change{ms: ms + int64(i), op: 0, id: id + int64(i)}
	}
	return rows
}

// With several workers, batches finish out of order (a large one ahead of
// small ones), and their results must still come back in submission
// order, row for row what a sequential read gives.
func TestConversionKeepsSubmissionOrder(t *testing.T) {
	var batches [][]change
	ms, id := int64(1_760_000_000_000), int64(1)
	for i := range 24 {
		n := 1
		if i%6 == 0 {
			n = 3000
		}
		batches = append(batches, inserts(ms, n, id))
		ms, id = ms+int64(n), id+int64(n)
	}
	parallel := convertAll(t, "t", 4, nil, batches...)
	sequential := convertAll(t, "t", 1, nil, batches...)
	if len(parallel) != len(batches) {
		t.Fatalf("%d results for %d batches", len(parallel), len(batches))
	}
	var prev checkpoint.Pos
	for i, res := range parallel {
		if len(res.Msgs) != len(batches[i]) || len(res.Pos) != len(res.Msgs) {
			t.Fatalf("result %d has %d messages and %d positions, want %d", i, len(res.Msgs), len(res.Pos), len(batches[i]))
		}
		for j, msg := range res.Msgs {
			want := batches[i][j]
			if got := res.Pos[j]; got != (checkpoint.Pos{TSO: want.tso(), Table: "db.t", Op: 0}) {
				t.Fatalf("result %d row %d at %+v, want TSO %d", i, j, got, want.tso())
			}
			if !prev.Less(res.Pos[j]) {
				t.Fatalf("result %d row %d at %+v does not follow %+v", i, j, res.Pos[j], prev)
			}
			prev = res.Pos[j]
			if got := bodyID(t, msg); got != want.id {
				t.Fatalf("result %d row %d has id %d, want %d", i, j, got, want.id)
			}
			if seq := sequential[i].Msgs[j]; metaString(t, msg, metaTSO) != metaString(t, seq, metaTSO) ||
				metaString(t, msg, metaOperation) != metaString(t, seq, metaOperation) {
				t.Fatalf("result %d row %d differs from the sequential read", i, j)
			}
		}
	}
}

// The rows up to skip (delivered before a restart or retry) are left out,
// across batch boundaries, and every row after it is kept.
func TestBatchSkipsDeliveredRows(t *testing.T) {
	const ms = 1_760_000_000_000
	txn := func(off int64, id int64) []change { // one transaction: 3 rows
		return []change{{ms: ms + off, lsn: 0, op: 0, id: id}, {ms: ms + off, lsn: 1, op: 1, id: id + 1}, {ms: ms + off, lsn: 2, op: 0, id: id + 2}}
	}
	b1, b2, b3 := txn(0, 10), txn(1, 20), txn(2, 30)
	skip := checkpoint.Pos{TSO: b2[1].tso(), Table: "db.t", LSN: 1, Op: 1}
	res := convertAll(t, "t", 3, &skip, b1, b2, b3)
	var ids []int64
	for _, r := range res {
		for _, msg := range r.Msgs {
			ids = append(ids, bodyID(t, msg))
		}
	}
	if want := []int64{22, 30, 31, 32}; !slices.Equal(ids, want) {
		t.Fatalf("ids %v handed on after skip %+v, want %v", ids, skip, want)
	}
	if len(res[0].Msgs) != 0 {
		t.Fatalf("the batch before skip gave %d rows", len(res[0].Msgs))
	}
}

// A window's rows are converted after the merge, on up to 4 cores,
// whichever table they belong to.
func TestWorkersUseTheCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	for procs, want := range map[int]int{8: 4, 4: 4, 3: 3, 2: 2, 1: 1} {
		runtime.GOMAXPROCS(procs)
		if got := Workers(); got != want {
			t.Errorf("Workers() = %d with %d cores, want %d", got, procs, want)
		}
	}
}
