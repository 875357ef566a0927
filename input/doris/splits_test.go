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
