package changes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// batchSource hands out batches, then ends with err (nil: the source is
// complete).
type batchSource struct {
	batches []*Batch
	err     error
	pulled  int
	mem     *memory.CheckedAllocator // what its batches' records hold
}

func (s *batchSource) Next(ctx context.Context) (*Batch, bool, error) {
	if s.pulled < len(s.batches) {
		s.pulled++
		return s.batches[s.pulled-1], true, nil
	}
	return nil, false, s.err
}

// source reads rows of db.name, cut into batches as given.
func source(tb testing.TB, name string, batches ...[]change) *batchSource {
	tb.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	return &batchSource{batches: batchesOf(tb, mem, name, nil, batches...), mem: mem}
}

// emitted is what a merge handed on: each batch, its last position, and
// its row counts per table.
type emitted struct {
	msgs   []*service.Message
	last   checkpoint.Pos
	counts map[string]OpCounts
}

// runMerge merges srcs, with update pairs merged by pairer (nil: not),
// and checks that every batch taken was released, failed merge or not.
func runMerge(t *testing.T, srcs []*batchSource, maxRows int, pairer *Pairer) ([]emitted, error) {
	t.Helper()
	var out []emitted
	opt := MergeOptions{MaxRows: maxRows, Workers: 2, Pairer: pairer}
	err := Merge(context.Background(), srcs, opt, func(msgs []*service.Message, pos []checkpoint.Pos, counts map[string]*OpCounts) error {
		last := pos[len(pos)-1]
		e := emitted{msgs: msgs, last: last, counts: map[string]OpCounts{}}
		for k, v := range counts {
			e.counts[k] = *v
		}
		out = append(out, e)
		return nil
	})
	for _, s := range srcs {
		for _, b := range s.batches[s.pulled:] {
			b.Release() // never taken: the source's owner releases them
		}
		if s.mem != nil {
			s.mem.AssertSize(t, 0)
		}
	}
	return out, err
}

// rowsOf is every emitted message as "table:id", in emission order.
func rowsOf(t *testing.T, out []emitted) []string {
	t.Helper()
	var rows []string
	for _, e := range out {
		for _, msg := range e.msgs {
			rows = append(rows, fmt.Sprintf("%s:%d", metaString(t, msg, metaTable), bodyID(t, msg)))
		}
	}
	return rows
}

const t0 = 1_760_000_000_000 // a TSO's physical ms

// Rows of several tables come out in (TSO, table, LSN, OP) order, whatever
// the batches the sources cut them into.
func TestMergeOrdersAcrossSources(t *testing.T) {
	a := source(t, "a",
		[]change{{ms: t0, id: 1}, {ms: t0 + 3, id: 2}},
		[]change{{ms: t0 + 4, id: 3}, {ms: t0 + 9, id: 4}, {ms: t0 + 9, lsn: 1, op: 1, id: 5}})
	b := source(t, "b",
		[]change{{ms: t0 + 1, id: 1}},
		[]change{{ms: t0 + 2, id: 2}},
		[]change{{ms: t0 + 5, id: 3}, {ms: t0 + 10, id: 4}})
	c := source(t, "c",
		[]change{{ms: t0 + 6, id: 1}, {ms: t0 + 7, id: 2}, {ms: t0 + 8, id: 3}})
	out, err := runMerge(t, []*batchSource{c, a, b}, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:1", "b:1", "b:2", "a:2", "a:3", "b:3", "c:1", "c:2", "c:3", "a:4", "a:5", "b:4"}
	if got := rowsOf(t, out); !slices.Equal(got, want) {
		t.Fatalf("merged order\n%v, want\n%v", got, want)
	}
	if len(out) != 1 || out[0].last != (checkpoint.Pos{TSO: change{ms: t0 + 10}.tso(), Table: "db.b"}) {
		t.Fatalf("emitted %d batch(es), last %+v; want one batch ending at b's last row", len(out), out[0].last)
	}
}

// A transaction that changed several tables (one TSO) is one run of rows,
// its tables in name order and each table's rows in LSN order, even where
// a later TSO's logical part is all that differs.
func TestMergeTiesOnTSOGoByTableThenLSN(t *testing.T) {
	a := source(t, "a", []change{{ms: t0, lsn: 0, id: 1}, {ms: t0, lsn: 1, id: 2}, {ms: t0, logical: 1, id: 3}})
	b := source(t, "b", []change{{ms: t0, lsn: 0, id: 1}}, []change{{ms: t0, lsn: 1, op: 2, id: 2}, {ms: t0, lsn: 1, op: 3, id: 3}})
	c := source(t, "c", []change{{ms: t0, lsn: 0, id: 1}, {ms: t0, logical: 1, id: 2}})
	out, err := runMerge(t, []*batchSource{b, c, a}, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:1", "a:2", "b:1", "b:2", "b:3", "c:1", "a:3", "c:2"}
	if got := rowsOf(t, out); !slices.Equal(got, want) {
		t.Fatalf("merged order\n%v, want\n%v", got, want)
	}
}

// Batches hold at most maxRows, the last one what is left; each batch
// carries the position of its own last row and counts only its own rows,
// per table and op.
func TestMergeCutsBatchesOfMaxRows(t *testing.T) {
	a := source(t, "a", []change{{ms: t0, id: 1}, {ms: t0 + 2, op: 1, id: 2}, {ms: t0 + 4, id: 3}})
	b := source(t, "b", []change{{ms: t0 + 1, id: 1}, {ms: t0 + 3, id: 2}, {ms: t0 + 5, op: 1, id: 3},
		{ms: t0 + 6, id: 4}, {ms: t0 + 7, id: 5}, {ms: t0 + 8, id: 6}, {ms: t0 + 9, op: 1, id: 7}})
	out, err := runMerge(t, []*batchSource{a, b}, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, e := range out {
		sizes = append(sizes, len(e.msgs))
	}
	if !slices.Equal(sizes, []int{4, 4, 2}) {
		t.Fatalf("batch sizes %v, want [4 4 2]", sizes)
	}
	wantLast := []checkpoint.Pos{
		{TSO: change{ms: t0 + 3}.tso(), Table: "db.b"},
		{TSO: change{ms: t0 + 7}.tso(), Table: "db.b"},
		{TSO: change{ms: t0 + 9}.tso(), Table: "db.b", Op: 1},
	}
	wantCounts := []map[string]OpCounts{
		{"db.a": {1, 1}, "db.b": {2}},
		{"db.a": {1}, "db.b": {2, 1}},
		{"db.b": {1, 1}},
	}
	for i, e := range out {
		if e.last != wantLast[i] {
			t.Errorf("batch %d last %+v, want %+v", i, e.last, wantLast[i])
		}
		if fmt.Sprint(e.counts) != fmt.Sprint(wantCounts[i]) {
			t.Errorf("batch %d counts %v, want %v", i, e.counts, wantCounts[i])
		}
	}
}

// A source that fails mid-window fails the merge with its error, and no
// row is handed on after it: not its own, nor another table's that comes
// later, nor what was taken into a batch not yet emitted.
func TestMergeStopsAtAFailedSource(t *testing.T) {
	lost := errors.New("flight stream of db.a broke")
	a := source(t, "a", []change{{ms: t0, id: 1}, {ms: t0 + 2, id: 2}})
	a.err = lost
	b := source(t, "b", []change{{ms: t0 + 1, id: 1}, {ms: t0 + 3, id: 2}}, []change{{ms: t0 + 4, id: 3}})
	out, err := runMerge(t, []*batchSource{a, b}, 2, nil)
	if !errors.Is(err, lost) {
		t.Fatalf("merge returned %v, want the source's failure", err)
	}
	if got, want := rowsOf(t, out), []string{"a:1", "b:1"}; !slices.Equal(got, want) {
		t.Fatalf("handed on %v, want only %v: the rows before the failure that filled a batch", got, want)
	}
	if b.pulled != 1 {
		t.Fatalf("the merge pulled %d batches of db.b after db.a failed", b.pulled)
	}

	// Failing before its first batch, a source lets nothing through.
	a = &batchSource{err: lost}
	b = source(t, "b", []change{{ms: t0, id: 1}})
	out, err = runMerge(t, []*batchSource{b, a}, 1, nil)
	if !errors.Is(err, lost) || len(out) != 0 {
		t.Fatalf("merge gave %d batches and %v, want none and the failure", len(out), err)
	}
}

// A source may hand on a batch with no rows (all of them skipped): it has
// no head to order by and is passed over.
func TestMergePassesOverEmptyBatches(t *testing.T) {
	a := source(t, "a", []change{{ms: t0 + 1, id: 1}})
	a.batches = append(append([]*Batch{{}}, a.batches...), &Batch{})
	b := source(t, "b", []change{{ms: t0, id: 1}, {ms: t0 + 2, id: 2}})
	out, err := runMerge(t, []*batchSource{a, b}, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rowsOf(t, out), []string{"b:1", "a:1", "b:2"}; !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
}

// With binlog_merge_updates, an update whose halves the read cut into two
// converted batches comes out as one `update` message and is counted as
// one; a half left alone is counted as what it is. Without it, the halves
// are two rows counted each.
func TestMergeUpdatePairsAcrossBatches(t *testing.T) {
	rows := [][]change{
		{{ms: t0, id: 1}, {ms: t0 + 1, op: opUpdateBefore, id: 2}},
		{{ms: t0 + 1, op: opUpdateAfter, id: 2}, {ms: t0 + 2, op: 1, id: 3}, {ms: t0 + 3, op: opUpdateAfter, id: 4}},
	}
	other := []change{{ms: t0 + 1, id: 9}}

	var unpaired []checkpoint.Pos
	p := NewPairer(func(pos checkpoint.Pos, _ string) { unpaired = append(unpaired, pos) })
	out, err := runMerge(t, []*batchSource{source(t, "a", rows...), source(t, "b", other)}, 2, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rowsOf(t, out), []string{"a:1", "a:2", "b:9", "a:3", "a:4"}; !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	// The first batch, full on the update_before, takes its update_after
	// from the source's next Arrow batch: two messages from three rows.
	if len(out) != 3 || len(out[0].msgs) != 2 || out[0].last.Op != opUpdateAfter {
		t.Fatalf("%d batches, the first of %d messages ending at %+v; want 3, the first ending on the merged update", len(out), len(out[0].msgs), out[0].last)
	}
	var ops []string
	sum := map[string]OpCounts{}
	for _, e := range out {
		for _, msg := range e.msgs {
			ops = append(ops, metaString(t, msg, metaOperation))
		}
		for k, c := range e.counts {
			s := sum[k]
			for i := range c {
				s[i] += c[i]
			}
			sum[k] = s
		}
	}
	if want := []string{"insert", "update", "insert", "delete", "update_after"}; !slices.Equal(ops, want) {
		t.Fatalf("operations %v, want %v", ops, want)
	}
	if want := (OpCounts{1, 1, 0, 1, 1}); sum["db.a"] != want {
		t.Fatalf("db.a counted %v (%s), want %v: one merged update and one lone update_after", sum["db.a"], countSlots(sum["db.a"]), want)
	}
	if len(unpaired) != 1 || unpaired[0].TSO != (change{ms: t0 + 3}).tso() {
		t.Fatalf("halves reported unpaired: %+v, want the lone update_after", unpaired)
	}

	// Without merging, the same rows are four messages and both halves are
	// counted as themselves.
	out, err = runMerge(t, []*batchSource{source(t, "a", rows...)}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got OpCounts
	for _, e := range out {
		c := e.counts["db.a"]
		for i := range c {
			got[i] += c[i]
		}
	}
	if want := (OpCounts{1, 1, 1, 2, 0}); got != want {
		t.Fatalf("without merging db.a counted %v (%s), want %v", got, countSlots(got), want)
	}
}

// countSlots names the counted slots, as the metrics do.
func countSlots(c OpCounts) string {
	s := ""
	for i, n := range c {
		if n > 0 {
			s += fmt.Sprintf("%s=%d ", CountName(i), n)
		}
	}
	return s
}

// sourceAfter reads rows of db.name after skip, as a restart's window read
// does.
func sourceAfter(tb testing.TB, name string, skip *checkpoint.Pos, batches ...[]change) *batchSource {
	tb.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	return &batchSource{batches: batchesOf(tb, mem, name, skip, batches...), mem: mem}
}

// batchKeys names each emitted batch by its messages, "table:id:operation".
func batchKeys(t *testing.T, out []emitted) []string {
	t.Helper()
	keys := make([]string, len(out))
	for i, e := range out {
		for _, msg := range e.msgs {
			keys[i] += fmt.Sprintf("%s:%d:%s ", metaString(t, msg, metaTable), bodyID(t, msg), metaString(t, msg, metaOperation))
		}
	}
	return keys
}

// With binlog_merge_updates, a restart from the end of any batch cuts the
// batches that followed it before: a batch never ends between an update's
// halves, so nothing is carried into the next one. Labels derived from a
// batch's first and last positions and its count (doris_load's) depend on
// that. The rows hold pairs cut apart by the sources' Arrow batches, a
// lone update_before (its update_after filtered out) and a lone
// update_after, in two tables.
func TestMergeCutsTheSameBatchesAfterARestart(t *testing.T) {
	ub, ua := int8(opUpdateBefore), int8(opUpdateAfter)
	a := [][]change{
		{{ms: t0, id: 1}, {ms: t0 + 1, op: ub, id: 2}},
		{{ms: t0 + 1, op: ua, id: 2}, {ms: t0 + 1, lsn: 1, op: ub, id: 3}, {ms: t0 + 1, lsn: 1, op: ua, id: 3}},
		{{ms: t0 + 2, op: ub, id: 4}, {ms: t0 + 3, op: ub, id: 5}, {ms: t0 + 3, op: ua, id: 5}, {ms: t0 + 3, lsn: 1, op: ua, id: 6}},
		{{ms: t0 + 4, op: ub, id: 7}},
		{{ms: t0 + 4, op: ua, id: 7}, {ms: t0 + 5, op: ub, id: 8}, {ms: t0 + 5, op: ua, id: 8}, {ms: t0 + 5, lsn: 1, op: ub, id: 9}},
		{{ms: t0 + 5, lsn: 1, op: ua, id: 9}, {ms: t0 + 6, id: 10}},
	}
	b := [][]change{
		{{ms: t0 + 1, id: 1}, {ms: t0 + 3, op: ub, id: 2}, {ms: t0 + 3, op: ua, id: 2}},
		{{ms: t0 + 5, op: ub, id: 3}, {ms: t0 + 5, op: ua, id: 3}},
	}
	noop := func(checkpoint.Pos, string) {}
	for maxRows := 1; maxRows <= 5; maxRows++ {
		out, err := runMerge(t, []*batchSource{source(t, "a", a...), source(t, "b", b...)}, maxRows, NewPairer(noop))
		if err != nil {
			t.Fatal(err)
		}
		all := batchKeys(t, out)
		for i, e := range out {
			if len(e.msgs) > maxRows {
				t.Errorf("batch_size %d: batch %d holds %d messages: %s", maxRows, i, len(e.msgs), all[i])
			}
		}
		if n := strings.Count(strings.Join(all, ""), ":update "); n != 8 {
			t.Errorf("batch_size %d: %d merged updates, want 8: %v", maxRows, n, all)
		}
		for k := range out[:len(out)-1] {
			skip := out[k].last
			again, err := runMerge(t, []*batchSource{sourceAfter(t, "a", &skip, a...), sourceAfter(t, "b", &skip, b...)}, maxRows, NewPairer(noop))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := batchKeys(t, again), all[k+1:]; !slices.Equal(got, want) {
				t.Fatalf("batch_size %d, restart after batch %d (%+v):\n got %q\nwant %q", maxRows, k, skip, got, want)
			}
		}
	}
}
