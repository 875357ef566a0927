package input

import (
	"slices"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// A small table's splits become one query per BE, in plan order, named
// after their first and last split; the plan itself is left as it was.
func TestQueriesForMergesPerBE(t *testing.T) {
	plan := []doris.Split{
		{ID: "snapshot-a-0", BE: "a", Tablets: []int64{1, 2}},
		{ID: "snapshot-a-1", BE: "a", Tablets: []int64{3}},
		{ID: "snapshot-b-0", BE: "b", Tablets: []int64{4}},
		{ID: "snapshot-b-1", BE: "b", Tablets: []int64{5}},
		{ID: "snapshot-b-2", BE: "b", Tablets: []int64{6}},
	}
	before := slices.Clone(plan[0].Tablets)
	got := queriesFor(plan, true)
	if len(got) != 2 {
		t.Fatalf("%d queries, want one per BE: %+v", len(got), got)
	}
	if got[0].ID != "snapshot-a-0..snapshot-a-1" || got[0].splits != 2 || !slices.Equal(got[0].Tablets, []int64{1, 2, 3}) {
		t.Errorf("BE a's query %+v", got[0])
	}
	if got[1].ID != "snapshot-b-0..snapshot-b-2" || got[1].BE != "b" || got[1].splits != 3 || !slices.Equal(got[1].Tablets, []int64{4, 5, 6}) {
		t.Errorf("BE b's query %+v", got[1])
	}
	if !slices.Equal(plan[0].Tablets, before) || len(plan[0].Tablets) != 2 {
		t.Errorf("the plan's first split changed to %v", plan[0].Tablets)
	}
	each := queriesFor(plan, false)
	if len(each) != len(plan) {
		t.Fatalf("%d queries for a table that is not small, want %d", len(each), len(plan))
	}
	for i, q := range each {
		if q.splits != 1 || q.ID != plan[i].ID || !slices.Equal(q.Tablets, plan[i].Tablets) {
			t.Errorf("query %d is %+v, want split %+v alone", i, q, plan[i])
		}
	}
}
