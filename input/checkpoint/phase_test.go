package checkpoint

import (
	"slices"
	"testing"
)

var (
	t0 = mustBound("2026-12-01 10:00:00")
	t1 = mustBound("2026-12-01 10:00:05")
	t2 = mustBound("2026-12-01 10:00:10")
)

// mustValid checks that a transition leaves a state validate accepts, which
// is what a save and the next load need.
func mustValid(t *testing.T, s *State, step string) {
	t.Helper()
	if err := validate(s); err != nil {
		t.Fatalf("after %s the state is invalid: %v", step, err)
	}
}

func phaseOf(s *State, key string) string {
	if t := s.Tables[key]; t != nil {
		return t.Phase
	}
	return "(absent)"
}

func TestPhasesOfATableThatJoinsARunningChain(t *testing.T) {
	s := New()
	s.StartChain(t0)
	s.AddTable("db.a", true, t1, 7)
	mustValid(t, s, "AddTable")
	if got := s.Tables["db.a"]; got.Phase != PhaseSnapshot || got.Start != t1 || got.MaxTablet != 7 {
		t.Fatalf("added table = %+v, want a snapshot with its own start %s", got, t1)
	}
	s.SnapshotTabletsDone("db.a", []int64{1, 2})
	s.SnapshotTabletsDone("db.a", []int64{3})
	if got := s.Tables["db.a"].DoneTablets; !slices.Equal(got, Tablets{1, 2, 3}) {
		t.Fatalf("done tablets = %v, want [1 2 3]", got)
	}
	if next := s.FinishSnapshot("db.a"); next != PhaseCatchUp {
		t.Fatalf("FinishSnapshot = %q, want catchup", next)
	}
	mustValid(t, s, "FinishSnapshot")
	if got := s.Tables["db.a"]; got.DoneTablets != nil || got.CatchUp == nil || got.CatchUp.Start != t1 {
		t.Fatalf("after the snapshot = %+v, want no done tablets and a catch-up from %s", got, t1)
	}
	s.CatchUpProgress("db.a", t1, t2, Pos{TSO: 5, Table: "db.a", LSN: 1})
	mustValid(t, s, "CatchUpProgress")
	// The chain moved on while the table caught up to t2.
	s.AdvanceChain(t2)
	s.ChainProgress(t2, mustBound("2026-12-01 10:00:20"), Pos{TSO: 9, Table: "db.b"})
	s.AdvanceChain(mustBound("2026-12-01 10:00:20"))
	if s.FinishCatchUp("db.a", t2) {
		t.Fatalf("FinishCatchUp joined the chain at %s, but the chain is at %s", t2, s.Stream.Start)
	}
	mustValid(t, s, "FinishCatchUp (chain moved on)")
	if got := s.Tables["db.a"]; got.Phase != PhaseCatchUp || got.Start != t2 || got.CatchUp.Start != t2 || got.CatchUp.Last != nil {
		t.Fatalf("after a partial catch-up = %+v, want a new catch-up from %s", got, t2)
	}
	if !s.FinishCatchUp("db.a", s.Stream.Start) {
		t.Fatalf("FinishCatchUp at the chain's start did not join")
	}
	mustValid(t, s, "FinishCatchUp (joined)")
	if got := s.Tables["db.a"]; got.Phase != PhaseBinlog || !got.Start.IsZero() || got.CatchUp != nil {
		t.Fatalf("joined table = %+v, want binlog with no start and no catch-up", got)
	}
}

func TestFinishSnapshotNextPhase(t *testing.T) {
	only := New()
	only.AddTable("db.a", true, Bound{}, 1)
	if next := only.FinishSnapshot("db.a"); next != PhaseDone {
		t.Errorf("without a stream FinishSnapshot = %q, want done", next)
	}
	mustValid(t, only, "FinishSnapshot without a stream")

	initial := New()
	initial.StartChain(t0)
	initial.AddTable("db.a", true, Bound{}, 1)
	if next := initial.FinishSnapshot("db.a"); next != PhaseBinlog {
		t.Errorf("a table that started with the chain: FinishSnapshot = %q, want binlog", next)
	}
	mustValid(t, initial, "FinishSnapshot with the chain")

	if next := initial.FinishSnapshot("db.gone"); next != "" {
		t.Errorf("FinishSnapshot of a dropped table = %q, want empty", next)
	}
	if _, ok := initial.Tables["db.gone"]; ok {
		t.Errorf("FinishSnapshot of a dropped table brought it back")
	}
}

// BinlogStart names where FinishSnapshot sends a table: nowhere without a
// stream, the chain's start with it, its own start when it joined later.
func TestBinlogStartFollowsFinishSnapshot(t *testing.T) {
	only := New()
	only.AddTable("db.a", true, Bound{}, 1)
	if got := only.BinlogStart("db.a"); !got.IsZero() {
		t.Errorf("without a stream BinlogStart = %q, want none", got)
	}
	s := New()
	s.StartChain(t0)
	s.AddTable("db.a", true, Bound{}, 1)
	s.AddTable("db.late", true, t1, 1)
	for key, want := range map[string]Bound{"db.a": t0, "db.late": t1, "db.gone": {}} {
		if got := s.BinlogStart(key); got != want {
			t.Errorf("BinlogStart(%s) = %q, want %q", key, got, want)
		}
	}
	s.FinishSnapshot("db.late")
	if c := s.Tables["db.late"].CatchUp; c == nil || c.Start != t1 {
		t.Errorf("db.late catches up from %+v, want %s, where BinlogStart said", c, t1)
	}
}

func TestTransitionsLeaveADroppedTableOut(t *testing.T) {
	s := New()
	s.StartChain(t0)
	s.AddTable("db.a", false, Bound{}, 3)
	if got := phaseOf(s, "db.a"); got != PhaseBinlog {
		t.Fatalf("a table added without snapshot is in %s, want binlog", got)
	}
	s.DropTable("db.a")
	s.SnapshotTabletsDone("db.a", []int64{1})
	s.StartCatchUp("db.a", t1)
	s.CatchUpProgress("db.a", t1, t2, Pos{TSO: 1, Table: "db.a"})
	s.FinishCatchUp("db.a", t0)
	s.JoinChain("db.a")
	s.NoteMaxTablet("db.a", 9)
	if len(s.Tables) != 0 {
		t.Fatalf("transitions on a dropped table re-created it: %+v", s.Tables)
	}
	mustValid(t, s, "transitions on a dropped table")
}

func TestCatchUpProgressOnlyInCatchUp(t *testing.T) {
	s := New()
	s.StartChain(t0)
	s.AddTable("db.a", false, Bound{}, 1)
	s.CatchUpProgress("db.a", t1, t2, Pos{TSO: 1, Table: "db.a"})
	if s.Tables["db.a"].CatchUp != nil {
		t.Fatalf("catch-up progress was written on a table in phase binlog")
	}
	mustValid(t, s, "CatchUpProgress outside catchup")
}

func TestNoteMaxTabletOnlyRaises(t *testing.T) {
	s := New()
	s.AddTable("db.a", true, Bound{}, 5)
	s.NoteMaxTablet("db.a", 3)
	if got := s.Tables["db.a"].MaxTablet; got != 5 {
		t.Fatalf("max tablet = %d after a lower one, want 5", got)
	}
	s.NoteMaxTablet("db.a", 8)
	if got := s.Tables["db.a"].MaxTablet; got != 8 {
		t.Fatalf("max tablet = %d, want 8", got)
	}
}

func TestChainTransitions(t *testing.T) {
	s := New()
	s.StartChain(t0)
	s.ChainProgress(t0, t1, Pos{TSO: 2, Table: "db.a", LSN: 3})
	mustValid(t, s, "ChainProgress")
	if s.Stream.End != t1 || s.Stream.Last == nil || s.Stream.Last.LSN != 3 {
		t.Fatalf("chain = %+v, want window [%s, %s) with its last row", s.Stream, t0, t1)
	}
	s.AdvanceChain(t1)
	mustValid(t, s, "AdvanceChain")
	if s.Stream.Start != t1 || !s.Stream.End.IsZero() || s.Stream.Last != nil {
		t.Fatalf("advanced chain = %+v, want {Start: %s}", s.Stream, t1)
	}
}

// A restart resumes the chain in the middle of window [t1, t2), after its
// last row, for every table it reads. A table that catches up to t1 meanwhile
// must not join there (its rows of [t1, t2) up to that last row would be
// skipped): it waits until the chain is past the window, reads it on its
// own, and joins at t2.
func TestCatchUpJoinsAResumedWindowOnlyPastIt(t *testing.T) {
	s := New()
	s.StartChain(t0)
	s.AddTable("db.a", false, Bound{}, 1)
	s.AddTable("db.t", true, t0, 1)
	s.AdvanceChain(t1)
	s.ChainProgress(t1, t2, Pos{TSO: 9, Table: "db.a"})
	s.FinishSnapshot("db.t")
	if w, due := s.CatchUpWindow("db.t"); !due || w.Start != t0 || w.End != t1 || w.Last != nil {
		t.Fatalf("CatchUpWindow = %+v, %v; want [%s, %s) due", w, due, t0, t1)
	}
	if s.FinishCatchUp("db.t", t1) {
		t.Fatalf("the table joined the chain at %s, in the middle of its window %+v", t1, s.Stream)
	}
	mustValid(t, s, "FinishCatchUp (mid-window)")
	if w, due := s.CatchUpWindow("db.t"); due || w.Start != t1 {
		t.Fatalf("CatchUpWindow = %+v, %v; want to wait at %s until the chain is past its window", w, due, t1)
	}
	s.AdvanceChain(t2)
	w, due := s.CatchUpWindow("db.t")
	if !due || w.Start != t1 || w.End != t2 || w.Last != nil {
		t.Fatalf("CatchUpWindow = %+v, %v; want the whole window [%s, %s)", w, due, t1, t2)
	}
	if !s.FinishCatchUp("db.t", t2) || phaseOf(s, "db.t") != PhaseBinlog {
		t.Fatalf("the table did not join at %s: %+v", t2, s.Tables["db.t"])
	}
}

func TestCatchUpWindow(t *testing.T) {
	last := Pos{TSO: 3, Table: "db.a"}
	for _, tc := range []struct {
		name        string
		chain, own  Window
		want        Window
		wantDue     bool
		notCatching bool
	}{
		{name: "behind the chain", chain: Window{Start: t1}, own: Window{Start: t0}, want: Window{Start: t0, End: t1}, wantDue: true},
		{name: "at the chain's fresh window", chain: Window{Start: t1, End: t2}, own: Window{Start: t1}, want: Window{Start: t1, End: t1}, wantDue: true},
		{name: "at a chain resumed mid-window", chain: Window{Start: t1, End: t2, Last: &last}, own: Window{Start: t1}, want: Window{Start: t1}},
		{name: "ahead of the chain", chain: Window{Start: t0}, own: Window{Start: t1}, want: Window{Start: t1}},
		{name: "its own chosen window", chain: Window{Start: t2}, own: Window{Start: t0, End: t1, Last: &last}, want: Window{Start: t0, End: t1, Last: &last}, wantDue: true},
		{name: "not catching up", chain: Window{Start: t1}, notCatching: true},
	} {
		s := New()
		s.Stream = tc.chain.Clone()
		s.AddTable("db.a", !tc.notCatching, tc.own.Start, 1)
		if !tc.notCatching {
			s.FinishSnapshot("db.a")
			s.Tables["db.a"].CatchUp = tc.own.Clone()
		}
		w, due := s.CatchUpWindow("db.a")
		if due != tc.wantDue || w.Start != tc.want.Start || w.End != tc.want.End || (w.Last == nil) != (tc.want.Last == nil) {
			t.Errorf("%s: CatchUpWindow = %+v, %v; want %+v, %v", tc.name, w, due, tc.want, tc.wantDue)
		}
	}
}
