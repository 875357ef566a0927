package output

import (
	"slices"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// routed is a row without source positions for the target in metadata t.
func routed(body, target string) *service.Message {
	m := service.NewMessage([]byte(body))
	m.MetaSetMut("t", target)
	return m
}

// TestFailedBatchKeepsNoLabelOfALoadedPart: a batch whose second target
// fails is not handed back (a fallback output took it); a later batch with
// the first target's rows must load them, not find them "already loaded"
// under the label of the part that succeeded.
func TestFailedBatchKeepsNoLabelOfALoadedPart(t *testing.T) {
	f := newFakeDoris(t)
	f.failTarget = "db.b"
	o := newTestOutput(t, f, "table_identifier: '${! @t }'\ncdc: \"false\"\nrequest_retries: 1\n")
	err := o.WriteBatch(testCtx(t), service.MessageBatch{routed(`{"id":1}`, "db.a"), routed(`{"id":2}`, "db.b")})
	if err == nil || !strings.Contains(err.Error(), "db.b") {
		t.Fatalf("failed target: %v", err)
	}
	if err := o.WriteBatch(testCtx(t), service.MessageBatch{routed(`{"id":1}`, "db.a")}); err != nil {
		t.Fatal(err)
	}
	if rows := f.visibleRows("db.a"); len(rows) != 2 {
		t.Fatalf("db.a holds %q: the later batch's row was skipped", rows)
	}
}

// TestLostAnswerIsResolvedByLabelState: a load that committed but whose
// answer was lost counts as loaded once the label's state says so; it is
// neither failed (and loaded again by a retry) nor left to swallow a later
// batch with the same rows.
func TestLostAnswerIsResolvedByLabelState(t *testing.T) {
	f := newFakeDoris(t)
	f.loseNext = 1
	o := newTestOutput(t, f, "table_identifier: db.t\ncdc: \"false\"\nrequest_retries: 1\n")
	batch := func() service.MessageBatch { return service.MessageBatch{service.NewMessage([]byte(`{"id":1}`))} }
	if err := o.WriteBatch(testCtx(t), batch()); err != nil {
		t.Fatalf("committed load with a lost answer: %v", err)
	}
	if rows := f.visibleRows("db.t"); len(rows) != 1 {
		t.Fatalf("rows %q after the lost answer, want 1", rows)
	}
	if err := o.WriteBatch(testCtx(t), batch()); err != nil {
		t.Fatal(err)
	}
	if rows := f.visibleRows("db.t"); len(rows) != 2 {
		t.Fatalf("rows %q: the later batch was skipped", rows)
	}
}

// TestTwoSourcesAtTheSamePositionsBothLoad: two source tables merged into
// one target can reach equal tso/lsn; their loads must not share a label.
func TestTwoSourcesAtTheSamePositionsBothLoad(t *testing.T) {
	f := newFakeDoris(t)
	f.models["all.orders"] = keysDuplicate
	o := newTestOutput(t, f, "table_identifier: all.orders\n")
	for _, db := range []string{"eu", "us"} {
		if err := o.WriteBatch(testCtx(t), service.MessageBatch{change(`{"id":1,"from":"`+db+`"}`, db, "orders", opInsert, 77, 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if rows := f.visibleRows("all.orders"); len(rows) != 2 {
		t.Fatalf("rows %q: the second source's load was skipped as already loaded", rows)
	}
}

// TestInPlaceRetryLoadsOnlyTheFailedParts: retry_in_order retries a batch
// of changes whose second target fails; the first target, loaded, is not
// sent again, and the failed one keeps its label.
func TestInPlaceRetryLoadsOnlyTheFailedParts(t *testing.T) {
	f := newFakeDoris(t)
	f.models["shop_replica.a"] = keysUnique
	f.models["shop_replica.b"] = keysUnique
	f.failTarget, f.failTargetTimes = "shop_replica.b", 2
	o := newTestOutput(t, f, routeYAML+"request_retries: 1\n")
	o.inOrder = doris.BackoffPolicy{}
	batch := service.MessageBatch{change(`{"id":1}`, "shop", "a", opInsert, 9, 1), change(`{"id":2}`, "shop", "b", opInsert, 9, 2)}
	if err := o.WriteBatch(testCtx(t), batch); err != nil {
		t.Fatal(err)
	}
	var a, b []string
	for _, l := range f.beLoads() {
		if strings.Contains(l.Path, "/a/") {
			a = append(a, l.Header.Get("label"))
		} else {
			b = append(b, l.Header.Get("label"))
		}
	}
	if len(a) != 1 || len(b) != 3 || b[0] == "" || b[1] != b[0] || b[2] != b[0] {
		t.Fatalf("loads into a %q, into b %q: want a once, b three times under one label", a, b)
	}
	if len(f.visibleRows("shop_replica.a")) != 1 || len(f.visibleRows("shop_replica.b")) != 1 {
		t.Fatal("rows missing after the retries")
	}
}

// TestSequenceColumnAlreadyInTheRow: a row that holds the sequence column
// (a replica replicated again) sends it once, with the change's tso.
func TestSequenceColumnAlreadyInTheRow(t *testing.T) {
	f := newFakeDoris(t)
	f.models["db.t"] = keysUnique
	o := newTestOutput(t, f, "table_identifier: db.t\nsequence_column: _src_tso\n")
	batch := service.MessageBatch{
		change(`{"id":1,"_src_tso":5,"n":"a"}`, "s", "t", opInsert, 900, 1),
		change(`{"_src_tso":6, "id":2}`, "s", "t", opUpdateAfter, 901, 1),
		change(`{"id":3,"n":"_src_tso"}`, "s", "t", opInsert, 902, 1),
	}
	if err := o.WriteBatch(testCtx(t), batch); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"id":1,"n":"a","__DORIS_DELETE_SIGN__":0,"_src_tso":900}`,
		`{"id":2,"__DORIS_DELETE_SIGN__":0,"_src_tso":901}`,
		`{"id":3,"n":"_src_tso","__DORIS_DELETE_SIGN__":0,"_src_tso":902}`,
	}
	if got := lines(f.beLoads()[0].Body); !slices.Equal(got, want) {
		t.Fatalf("body %q, want %q", got, want)
	}
}
