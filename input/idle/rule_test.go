package idle

import (
	"errors"
	"strings"
	"testing"
)

func snap(t *testing.T, fenceMs int64, rows ...Row) *Snapshot {
	t.Helper()
	s, err := Build(rows)
	if err != nil {
		t.Fatal(err)
	}
	s.FenceMs = fenceMs
	return s
}

// The start snapshot is the latest one fenced strictly below the window's
// start; one fenced at or after it may already hold a commit of the
// window, and never serves.
func TestIdleNeedsAStartSnapshotFencedBelowTheStart(t *testing.T) {
	r := New()
	a := Row{Table: "t", PartitionID: 7, CommittedVersion: 2, VisibleVersion: 2}
	end := snap(t, 0, a)
	if r.Idle("d", "t", 10_000, end) {
		t.Fatal("idle without any start snapshot")
	}
	r.Record("d", snap(t, 10_000, a), 10_000)
	if r.Idle("d", "t", 10_000, end) {
		t.Fatal("a snapshot fenced at the window's start served as its start")
	}
	if !r.Idle("d", "t", 10_001, end) {
		t.Fatal("a snapshot fenced below the start, same versions: want idle")
	}
	if r.Idle("other", "t", 10_001, end) {
		t.Fatal("another database's snapshot served")
	}
	if r.Idle("d", "t", 10_001, nil) {
		t.Fatal("idle without an end snapshot")
	}
}

// Any difference in the partitions or their committed versions means
// "read": a commit, a partition added, dropped or replaced, a table
// created again under its name, a version that went down (restore), a
// table missing or without partitions. A publish alone (visible version)
// changes nothing: its commit already moved the committed version.
func TestIdleReadsOnEveryDifference(t *testing.T) {
	p1 := Row{Table: "t", PartitionID: 7, CommittedVersion: 3, VisibleVersion: 2}
	p2 := Row{Table: "t", PartitionID: 8, CommittedVersion: 5, VisibleVersion: 5}
	other := Row{Table: "u", PartitionID: 9, CommittedVersion: 2, VisibleVersion: 2}
	r := New()
	r.Record("d", snap(t, 500, p1, p2, other), 0)
	with := func(rows ...Row) *Snapshot { return snap(t, 0, rows...) }
	bump := func(p Row, d int64) Row {
		p.CommittedVersion += d
		p.VisibleVersion = min(p.VisibleVersion, p.CommittedVersion)
		return p
	}
	newID := func(p Row, id int64) Row { p.PartitionID = id; return p }
	cases := []struct {
		name string
		end  *Snapshot
		idle bool
	}{
		{"unchanged", with(p1, p2, other), true},
		{"published only", with(Row{Table: "t", PartitionID: 7, CommittedVersion: 3, VisibleVersion: 3}, p2), true},
		{"committed", with(bump(p1, 1), p2), false},
		{"version went down", with(bump(p1, -1), p2), false},
		{"partition added", with(p1, p2, Row{Table: "t", PartitionID: 10, CommittedVersion: 1, VisibleVersion: 1}), false},
		{"partition dropped", with(p1), false},
		{"partition replaced, same versions", with(newID(p1, 11), p2), false},
		{"table gone", with(other), false},
		{"recreated under its name", with(newID(p1, 12), newID(p2, 13)), false},
	}
	for _, c := range cases {
		if got := r.Idle("d", "t", 1000, c.end); got != c.idle {
			t.Errorf("%s: idle %v, want %v", c.name, got, c.idle)
		}
	}
	if r.Idle("d", "missing", 1000, with(p1, p2)) {
		t.Error("a table in neither snapshot is idle")
	}
}

// Recording keeps the latest snapshot fenced below the next start and
// every later one, and ignores snapshots without a fence.
func TestRecordKeepsWhatCanStillServe(t *testing.T) {
	p := Row{Table: "t", PartitionID: 7, CommittedVersion: 2, VisibleVersion: 2}
	q := Row{Table: "t", PartitionID: 7, CommittedVersion: 3, VisibleVersion: 3}
	r := New()
	r.Record("d", snap(t, 1_030, p), 1_000)
	r.Record("d", snap(t, 0, q), 2_000) // no fence: never a start
	if got := len(r.dbs["d"]); got != 1 {
		t.Fatalf("%d snapshots kept, want the fenced one", got)
	}
	r.Record("d", snap(t, 2_030, q), 2_000)
	r.Record("d", snap(t, 3_030, q), 3_000)
	if got := len(r.dbs["d"]); got != 2 || r.dbs["d"][0].FenceMs != 2_030 {
		t.Fatalf("kept %d snapshots from fence %d, want those fenced at 2030 and 3030", got, r.dbs["d"][0].FenceMs)
	}
	// Window [3000, 4000) starts after the snapshot fenced at 2030 (q):
	// idle against q, not against the dropped p.
	if !r.Idle("d", "t", 3_000, snap(t, 0, q)) {
		t.Fatal("the latest snapshot fenced below 3000 was not used")
	}
	r.Forget()
	if r.Idle("d", "t", 3_000, snap(t, 0, q)) {
		t.Fatal("idle after Forget")
	}
}

// Build refuses answers Doris cannot give, and names cloud mode apart.
func TestBuildValidates(t *testing.T) {
	var cloud *ErrCloudMode
	if _, err := Build([]Row{{Table: "t", PartitionID: 1, CommittedVersion: -1, VisibleVersion: 4}}); !errors.As(err, &cloud) || cloud.Table != "t" {
		t.Fatalf("committed -1: %v, want cloud mode", err)
	}
	bad := map[string][]Row{
		"empty TABLE_NAME":     {{PartitionID: 1, CommittedVersion: 1, VisibleVersion: 1}},
		"PARTITION_ID 0":       {{Table: "t", CommittedVersion: 1, VisibleVersion: 1}},
		"VISIBLE_VERSION 3":    {{Table: "t", PartitionID: 1, CommittedVersion: 2, VisibleVersion: 3}},
		"COMMITTED_VERSION 0":  {{Table: "t", PartitionID: 1, CommittedVersion: 0, VisibleVersion: 0}},
		"PARTITION_ID 5 appea": {{Table: "t", PartitionID: 5, CommittedVersion: 1, VisibleVersion: 1}, {Table: "u", PartitionID: 5, CommittedVersion: 1, VisibleVersion: 1}},
	}
	for want, rows := range bad {
		if _, err := Build(rows); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want an error with %q", rows, err, want)
		}
	}
}
