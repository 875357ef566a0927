package doris

import (
	"reflect"
	"testing"
)

func TestPlanSplitsBalancesAcrossBEs(t *testing.T) {
	plan := &QueryPlan{Tablets: []PlanTablet{
		{ID: 4, Routings: []string{"be1:9060", "be2:9060"}},
		{ID: 1, Routings: []string{"be1:9060", "be2:9060"}},
		{ID: 2, Routings: []string{"be1:9060", "be2:9060"}},
		{ID: 3, Routings: []string{"be1:9060", "be2:9060"}},
		{ID: 5, Routings: []string{"be1:9060"}},
	}}
	got := PlanSplits(plan, 1)
	// 1 -> be1 (unused), 2 -> be2 (unused), 3 -> be1 (tie, first), 4 -> be2 (least loaded), 5 -> be1 (only routing).
	want := []Split{
		{ID: "snapshot-be1:9060-0", BE: "be1:9060", Tablets: []int64{1}},
		{ID: "snapshot-be1:9060-1", BE: "be1:9060", Tablets: []int64{3}},
		{ID: "snapshot-be1:9060-2", BE: "be1:9060", Tablets: []int64{5}},
		{ID: "snapshot-be2:9060-0", BE: "be2:9060", Tablets: []int64{2}},
		{ID: "snapshot-be2:9060-1", BE: "be2:9060", Tablets: []int64{4}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// Tablets per split groups each BE's tablets; the last group may be short.
	got = PlanSplits(plan, 2)
	want = []Split{
		{ID: "snapshot-be1:9060-0", BE: "be1:9060", Tablets: []int64{1, 3}},
		{ID: "snapshot-be1:9060-1", BE: "be1:9060", Tablets: []int64{5}},
		{ID: "snapshot-be2:9060-0", BE: "be2:9060", Tablets: []int64{2, 4}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// The input plan is not reordered.
	if plan.Tablets[0].ID != 4 {
		t.Fatal("PlanSplits mutated the plan")
	}
}

func TestPlanSplitsEdgeCases(t *testing.T) {
	if PlanSplits(nil, 1) != nil || PlanSplits(&QueryPlan{}, 1) != nil {
		t.Fatal("empty plan must give no splits")
	}
	got := PlanSplits(&QueryPlan{Tablets: []PlanTablet{{ID: 9}, {ID: 7}}}, 0)
	want := []Split{
		{ID: "snapshot--0", BE: "", Tablets: []int64{7}},
		{ID: "snapshot--1", BE: "", Tablets: []int64{9}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

// TestPlanSplitsPartitionedTable: a 30-partition × 8-bucket plan on two BEs
// is read tablet by tablet exactly once for any size, and no split holds
// more than the requested tablets.
func TestPlanSplitsPartitionedTable(t *testing.T) {
	var plan QueryPlan
	for p := range 30 {
		for b := range 8 {
			id := int64(10001 + p*8 + b)
			plan.Tablets = append(plan.Tablets, PlanTablet{ID: id, Routings: []string{[]string{"be1:9060", "be2:9060"}[int(id)%2]}})
		}
	}
	for _, size := range []int{1, 7, 8, 1000} {
		seen := map[int64]int{}
		for _, s := range PlanSplits(&plan, size) {
			if len(s.Tablets) == 0 || len(s.Tablets) > size {
				t.Fatalf("size %d: split %s has %d tablets", size, s.ID, len(s.Tablets))
			}
			for _, id := range s.Tablets {
				seen[id]++
			}
		}
		for _, pt := range plan.Tablets {
			if seen[pt.ID] != 1 {
				t.Fatalf("size %d: tablet %d read %d times", size, pt.ID, seen[pt.ID])
			}
		}
		if len(seen) != 240 {
			t.Fatalf("size %d: %d tablets planned, want 240", size, len(seen))
		}
	}
}
