package windowplan

import (
	"slices"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

func plannedTexts(st *checkpoint.State) []string {
	var out []string
	for _, e := range st.Stream.Planned {
		out = append(out, e.String())
	}
	return out
}

// Ends chosen before a restart come back in order, a window takes the first
// end after its start, and a save carries only the ends beyond its window.
func TestPlannedEndsRestoreNextAttach(t *testing.T) {
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:00"))
	st.Stream.Planned = []checkpoint.Bound{ckb("2026-12-01 10:00:05"), ckb("2026-12-01 10:00:09")}
	var p Ends
	p.Restore(st)
	if end, ok := p.Next(mustBound(t, "2026-12-01 10:00:00")); !ok || end.String() != "2026-12-01 10:00:05" {
		t.Fatalf("next after the start = %s, %v; want the first planned end", end, ok)
	}
	if end, ok := p.Next(mustBound(t, "2026-12-01 10:00:05")); !ok || end.String() != "2026-12-01 10:00:09" {
		t.Fatalf("next after the first end = %s, %v; want the second", end, ok)
	}
	if _, ok := p.Next(mustBound(t, "2026-12-01 10:00:09")); ok {
		t.Fatalf("a window past every planned end found one")
	}
	p.Add(mustBound(t, "2026-12-01 10:00:12"))
	p.Add(mustBound(t, "2026-12-01 10:00:12")) // the same end again is kept once
	p.Add(mustBound(t, "2026-12-01 10:00:11")) // never out of order

	mid := checkpoint.New()
	mid.StartChain(ckb("2026-12-01 10:00:05"))
	mid.ChainProgress(ckb("2026-12-01 10:00:05"), ckb("2026-12-01 10:00:09"), checkpoint.Pos{TSO: 1, Table: "db.a"})
	got := p.Attach(mid)
	if want := []string{"2026-12-01 10:00:12"}; !slices.Equal(plannedTexts(got), want) {
		t.Fatalf("attached ends = %v, want %v (those beyond the window's end)", plannedTexts(got), want)
	}
	if mid.Stream.Planned != nil {
		t.Fatalf("attach changed the state it was given: %v", mid.Stream.Planned)
	}
	// The passed ends are forgotten.
	if len(p.ends) != 1 || p.ends[0] != mustBound(t, "2026-12-01 10:00:12") {
		t.Fatalf("planner keeps %v after attach, want only 10:00:12", p.ends)
	}
	if end, ok := p.Next(mustBound(t, "2026-12-01 10:00:00")); !ok || end.String() != "2026-12-01 10:00:12" {
		t.Fatalf("after attach, next = %s, %v; want only the end beyond the saved window", end, ok)
	}
	// A position that already carries ends (as restored) gets the kept
	// ones instead, never both.
	carried := mid.Clone()
	carried.Stream.Planned = []checkpoint.Bound{ckb("2026-12-01 10:00:12")}
	if got := p.Attach(carried); !slices.Equal(plannedTexts(got), []string{"2026-12-01 10:00:12"}) {
		t.Fatalf("attached ends to a position that carried some = %v, want only the kept one", plannedTexts(got))
	}
	done := checkpoint.New()
	done.StartChain(ckb("2026-12-01 10:00:12"))
	if got := p.Attach(done); got.Stream.Planned != nil {
		t.Fatalf("a position past every end carries %v, want none", got.Stream.Planned)
	}
}
