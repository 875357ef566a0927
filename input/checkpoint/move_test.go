package checkpoint

import (
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// moveFixture is a chain at 10:00:10 that delivered a row of d.b, with d.a
// and d.b streaming.
func moveFixture(t *testing.T) *State {
	t.Helper()
	s := New()
	s.StartChain(mustParse(t, "2026-01-01 10:00:00"))
	s.AddTable("d.a", false, Bound{}, 7)
	s.AddTable("d.b", false, Bound{}, 9)
	s.AdvanceChain(mustParse(t, "2026-01-01 10:00:10"))
	s.ChainProgress(mustParse(t, "2026-01-01 10:00:10"), mustParse(t, "2026-01-01 10:00:12"), Pos{TSO: 1 << 40, Table: "d.b", LSN: 4, Op: 0})
	return s
}

func mustParse(t *testing.T, text string) Bound {
	t.Helper()
	b, err := ParseBound(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMoveTableBackToATSOCatchesUpFromIt(t *testing.T) {
	s := moveFixture(t)
	from := mustParse(t, "2026-01-01 10:00:03")
	tso := int64(from.Ms()+250)<<18 | 5
	last := LastBefore("d.a", tso)
	if err := s.MoveTable("d.a", from, &last); err != nil {
		t.Fatal(err)
	}
	if _, err := Encode(s); err != nil {
		t.Fatalf("the moved state does not encode: %v", err)
	}
	a, b := s.Tables["d.a"], s.Tables["d.b"]
	if a.Phase != PhaseCatchUp || b.Phase != PhaseBinlog || a.MaxTablet != 7 {
		t.Fatalf("phases a=%s b=%s max_tablet=%d; want catchup, binlog, 7 kept", a.Phase, b.Phase, a.MaxTablet)
	}
	w, due := s.CatchUpWindow("d.a")
	if !due || w.Start != from || w.End != mustParse(t, "2026-01-01 10:00:04") || w.Last == nil || *w.Last != last {
		t.Fatalf("catch-up window %+v due=%v; want [10:00:03, 10:00:04) after %+v", w, due, last)
	}
	// Rows of d.a before the TSO are skipped, the TSO's own are read.
	if before := (Pos{TSO: tso - 1, Table: "d.a", LSN: 1 << 40, Op: 3}); last.Less(before) {
		t.Errorf("row %+v before the TSO is not skipped", before)
	}
	if !last.Less(Pos{TSO: tso, Table: "d.a"}) {
		t.Errorf("the row at the TSO is skipped")
	}
	// The rest is caught up up to the chain, which stands mid-window:
	// the table waits and reads that window on its own.
	if s.FinishCatchUp("d.a", w.End) {
		t.Fatal("joined the chain at 10:00:04, which is not where the chain stands")
	}
	w, due = s.CatchUpWindow("d.a")
	if !due || w.Start != mustParse(t, "2026-01-01 10:00:04") || w.End != s.Stream.Start {
		t.Fatalf("second catch-up window %+v due=%v; want [10:00:04, chain start)", w, due)
	}
	if s.Stream.Last == nil || s.Stream.Last.TSO != 1<<40 {
		t.Fatalf("the chain's position changed: %+v", s.Stream)
	}
}

func TestMoveTableForwardWaitsForTheChain(t *testing.T) {
	s := moveFixture(t)
	ahead := mustParse(t, "2026-01-01 10:05:00")
	if err := s.MoveTable("d.a", ahead, nil); err != nil {
		t.Fatal(err)
	}
	if _, due := s.CatchUpWindow("d.a"); due {
		t.Fatal("a table moved past the chain reads before the chain got there")
	}
	s.AdvanceChain(mustParse(t, "2026-01-01 10:06:00"))
	w, due := s.CatchUpWindow("d.a")
	if !due || w.Start != ahead || w.End != mustParse(t, "2026-01-01 10:06:00") {
		t.Fatalf("window %+v due=%v; want [10:05:00, 10:06:00)", w, due)
	}
	if !s.FinishCatchUp("d.a", w.End) || s.Tables["d.a"].Phase != PhaseBinlog {
		t.Fatal("did not join the chain at its start")
	}
}

func TestMoveTableRefusals(t *testing.T) {
	s := moveFixture(t)
	inChain := mustParse(t, "2026-01-01 10:00:10")
	last := LastBefore("d.a", int64(inChain.Ms()+1)<<18)
	for name, err := range map[string]error{
		"unknown table":      s.MoveTable("d.x", inChain, nil),
		"second not closed":  s.MoveTable("d.a", inChain, &last),
		"no position":        s.MoveTable("d.a", Bound{}, nil),
		"no stream":          (&State{Tables: map[string]*Table{"d.a": {Phase: PhaseDone}}}).MoveTable("d.a", inChain, nil),
		"resnapshot unknown": s.Resnapshot("d.x"),
	} {
		if err == nil || !strings.Contains(err.Error(), "d.") {
			t.Errorf("%s: got %v, want an error naming the table", name, err)
		}
	}
}

func TestResnapshotCatchesUpFromTheChainWithoutHoldingIt(t *testing.T) {
	s := moveFixture(t)
	s.SnapshotTabletsDone("d.b", []int64{3}) // stale progress must go
	if err := s.Resnapshot("d.b"); err != nil {
		t.Fatal(err)
	}
	b := s.Tables["d.b"]
	if b.Phase != PhaseSnapshot || len(b.DoneTablets) != 0 || b.Start != s.Stream.Start || b.MaxTablet != 9 {
		t.Fatalf("table %+v; want a fresh snapshot starting its binlog at the chain's start", b)
	}
	if _, err := Encode(s); err != nil {
		t.Fatal(err)
	}
	if got := s.FinishSnapshot("d.b"); got != PhaseCatchUp {
		t.Fatalf("after its snapshot the table is in %s, want catchup (the chain does not wait for it)", got)
	}
	if s.Tables["d.a"].Phase != PhaseBinlog {
		t.Fatal("the other table left the chain")
	}
}

// SaveEdit keeps saved_at, the input's last save, which tells the offsets
// command whether an input runs; Save stamps the current time.
func TestSaveEditKeepsSavedAt(t *testing.T) {
	res := mockRes()
	s := NewStore(res, "cp", testKey)
	st := moveFixture(t)
	if err := s.Save(testCtx(t), st); err != nil {
		t.Fatal(err)
	}
	saved := st.SavedAt
	if saved.IsZero() {
		t.Fatal("Save left saved_at unset")
	}
	edit := st.Clone()
	if err := edit.Resnapshot("d.a"); err != nil {
		t.Fatal(err)
	}
	if err := NewStore(res, "cp", testKey).SaveEdit(testCtx(t), edit); err != nil {
		t.Fatal(err)
	}
	got, _, err := NewStore(res, "cp", testKey).Load(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !got.SavedAt.Equal(saved) || got.Seq != st.Seq+1 || got.Tables["d.a"].Phase != PhaseSnapshot {
		t.Fatalf("after SaveEdit: saved_at %v seq %d phase %s; want saved_at %v, seq %d, the edit", got.SavedAt, got.Seq, got.Tables["d.a"].Phase, saved, st.Seq+1)
	}
}

// An operator's reset or set of a table replaces whatever a signal did to
// it: a pending signal is dropped and a signalled snapshot abandoned, so
// the next start neither applies the old signal over the operator's choice
// nor writes a state that validate refuses.
func TestResetAndSetDropTheTablesSignal(t *testing.T) {
	signalled := func() *State {
		s := moveFixture(t)
		if err := s.Resnapshot("d.a", BySignal("s1", "id > 3"), BinlogFrom(s.Stream.Start)); err != nil {
			t.Fatal(err)
		}
		s.SnapshotTabletsDone("d.a", []int64{1})
		s.NoteSignal("d.b", PendingSignal{ID: "s2", Kind: SignalExecuteSnapshot})
		return s
	}
	s := signalled()
	for _, key := range []string{"d.a", "d.b"} {
		if err := s.Resnapshot(key); err != nil {
			t.Fatal(err)
		}
		if tb := s.Tables[key]; tb.Phase != PhaseSnapshot || tb.Signal != "" || tb.SignalFilter != "" || tb.Pending != nil || len(tb.DoneTablets) != 0 {
			t.Fatalf("reset %s: %+v; want a full snapshot with no signal", key, tb)
		}
	}
	roundTrip(t, s)

	s = signalled()
	back := s.Stream.Start
	for _, key := range []string{"d.a", "d.b"} {
		if err := s.MoveTable(key, back, nil); err != nil {
			t.Fatal(err)
		}
		if tb := s.Tables[key]; tb.Phase != PhaseCatchUp || tb.Signal != "" || tb.SignalFilter != "" || tb.Pending != nil {
			t.Fatalf("set %s: %+v; want a catch-up with no signal", key, tb)
		}
	}
	roundTrip(t, s)
}

// A signal needs a stream: its snapshot's binlog starts where the table
// stands in it.
func TestSignalledResnapshotNeedsAStream(t *testing.T) {
	s := &State{Tables: map[string]*Table{"d.a": {Phase: PhaseDone}}}
	if err := s.Resnapshot("d.a", BySignal("s1", "")); err == nil || !strings.Contains(err.Error(), "d.a") {
		t.Fatalf("got %v, want an error naming the table", err)
	}
	if err := s.Resnapshot("d.a"); err != nil || s.Tables["d.a"].Phase != PhaseSnapshot || !s.Tables["d.a"].Start.IsZero() {
		t.Fatalf("reset without a stream: %v %+v", err, s.Tables["d.a"])
	}
}

// A new snapshot of a streaming table is read as of the last TSO before
// its new binlog start, where its changes were delivered up to, so the
// catch-up from that start leaves none out: a delete just after it has no
// snapshot row that could carry it.
func TestResnapshotReadsAsOfItsBinlogStart(t *testing.T) {
	s := moveFixture(t)
	if err := s.Resnapshot("d.b"); err != nil {
		t.Fatal(err)
	}
	b := s.Tables["d.b"]
	want := doris.LastTSOBefore(b.Start.Ms())
	if b.SnapshotTSO != want {
		t.Fatalf("snapshot_tso %d (%s), want %d, the last TSO before the binlog start %s", b.SnapshotTSO,
			time.UnixMilli(doris.PhysicalMs(b.SnapshotTSO)).UTC(), want, b.Start)
	}
	skip, ok := s.SnapshotFloor("d.b")
	if !ok || skip.TSO >= int64(b.Start.Ms())<<18 {
		t.Fatalf("the catch-up leaves out %+v (%v); want nothing at or after its start", skip, ok)
	}
}
