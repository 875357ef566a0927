package windowplan

import (
	"slices"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/idle"
)

func snapshotOf(t *testing.T, fenceMs int64, rows ...idle.Row) *idle.Snapshot {
	t.Helper()
	s, err := idle.Build(rows)
	if err != nil {
		t.Fatal(err)
	}
	s.FenceMs = fenceMs
	return s
}

// A window skips a table only once a snapshot fenced below its start and
// the snapshot read for it agree on the table's partitions; a table that
// changed, one the snapshot leaves out, and one of a database without a
// snapshot are read.
func TestSkipIdleNeedsAFencedStartAndAnEqualEnd(t *testing.T) {
	base := mustBound(t, "2026-12-01 10:00:00")
	tables := []Table{{"d", "a"}, {"d", "b"}, {"d", "gone"}, {"e", "x"}}
	rows := func(bVersion int64) []idle.Row {
		return []idle.Row{
			{Table: "a", PartitionID: 1, CommittedVersion: 3, VisibleVersion: 3},
			{Table: "b", PartitionID: 2, CommittedVersion: bVersion, VisibleVersion: bVersion},
			{Table: "gone", PartitionID: 3, CommittedVersion: 2, VisibleVersion: 2},
		}
	}
	rule := idle.New()
	// The first window has no start snapshot: every table is read, and its
	// snapshot, fenced inside the second window, is recorded.
	w1 := Window{Start: base, End: base + 1000}
	got := SkipIdle(rule, w1, tables, map[string]*idle.Snapshot{"d": snapshotOf(t, base.Ms()+1500, rows(2)...)})
	if !slices.Equal(got, []bool{false, false, false, false}) {
		t.Fatalf("first window skips %v, want every table read", got)
	}
	// The second window starts at base+1000, below that fence: still read.
	w2 := Window{Start: base + 1000, End: base + 2000}
	got = SkipIdle(rule, w2, tables, map[string]*idle.Snapshot{"d": snapshotOf(t, base.Ms()+2500, rows(2)...)})
	if !slices.Equal(got, []bool{false, false, false, false}) {
		t.Fatalf("second window skips %v, want every table read (no snapshot fenced below its start)", got)
	}
	// The third starts past the first fence: a is idle, b moved, gone is
	// missing from the end snapshot, e has none.
	w3 := Window{Start: base + 2000, End: base + 3000}
	end := snapshotOf(t, base.Ms()+3500, rows(4)[:2]...)
	got = SkipIdle(rule, w3, tables, map[string]*idle.Snapshot{"d": end})
	if want := []bool{true, false, false, false}; !slices.Equal(got, want) {
		t.Fatalf("third window skips %v, want %v", got, want)
	}
}
