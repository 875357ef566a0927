package checkpoint

import (
	"strings"
	"testing"
)

func signalState() *State {
	s := New()
	s.StartChain(mustBound("2026-01-01 00:00:00"))
	s.AddTable("db.a", false, Bound{}, 1)
	s.AddTable("db.b", false, Bound{}, 1)
	s.AddTable("db.late", true, mustBound("2026-01-01 00:00:05"), 1)
	return s
}

// A noted execute-snapshot takes effect at the window's end: the table
// leaves the chain there, snapshots, catches up from there and rejoins;
// the others stay in the chain.
func TestExecuteSnapshotLeavesAtTheWindowEnd(t *testing.T) {
	s := signalState()
	s.ChainProgress(s.Stream.Start, mustBound("2026-01-01 00:00:01"), Pos{TSO: 7, Table: "db.sig"})
	s.NoteSignal("db.b", PendingSignal{ID: "s1", Kind: SignalExecuteSnapshot, Filter: "id > 3"})
	if _, err := Encode(s); err != nil {
		t.Fatalf("a noted signal must encode: %v", err)
	}
	end := mustBound("2026-01-01 00:00:01")
	s.AdvanceChain(end)
	res := s.ApplySignals(end)
	if len(res) != 1 || res[0] != (SignalResult{Table: "db.b", ID: "s1", Kind: SignalExecuteSnapshot, Outcome: SignalStarted}) {
		t.Fatalf("results %+v", res)
	}
	b := s.Tables["db.b"]
	if b.Phase != PhaseSnapshot || b.Start != end || b.Signal != "s1" || b.SignalFilter != "id > 3" || b.Pending != nil {
		t.Fatalf("db.b after the signal: %+v", b)
	}
	if s.Tables["db.a"].Phase != PhaseBinlog {
		t.Fatalf("db.a left the chain: %+v", s.Tables["db.a"])
	}
	roundTrip(t, s)
	if next := s.FinishSnapshot("db.b"); next != PhaseCatchUp || s.Tables["db.b"].Signal != "" {
		t.Fatalf("after the snapshot: %s %+v", next, s.Tables["db.b"])
	}
	if w, due := s.CatchUpWindow("db.b"); w.Start != end || !due {
		t.Fatalf("catch-up window %+v due %v, want from %s", w, due, end)
	}
}

// stop-snapshot ends a signalled snapshot: the table catches up from
// where it left; it leaves other snapshots alone.
func TestStopSnapshotCatchesUpFromWhereTheTableLeft(t *testing.T) {
	s := signalState()
	end := mustBound("2026-01-01 00:00:01")
	s.NoteSignal("db.b", PendingSignal{ID: "s1", Kind: SignalExecuteSnapshot})
	s.AdvanceChain(end)
	s.ApplySignals(end)
	s.SnapshotTabletsDone("db.b", []int64{11, 12})
	s.NoteSignal("db.b", PendingSignal{ID: "s2", Kind: SignalStopSnapshot})
	s.NoteSignal("db.late", PendingSignal{ID: "s2", Kind: SignalStopSnapshot})
	if got := s.PendingStops(); len(got) != 1 || got[0] != "db.b" {
		t.Fatalf("pending stops %v, want [db.b]", got)
	}
	next := mustBound("2026-01-01 00:00:02")
	s.AdvanceChain(next)
	res := s.ApplySignals(next)
	if len(res) != 2 || res[0].Outcome != SignalStopped || res[1].Outcome != SignalIgnored || !strings.Contains(res[1].Reason, "no snapshot started by a signal") {
		t.Fatalf("results %+v", res)
	}
	b := s.Tables["db.b"]
	if b.Phase != PhaseCatchUp || b.CatchUp.Start != end || len(b.DoneTablets) != 0 || b.Signal != "" {
		t.Fatalf("db.b after the stop: %+v", b)
	}
	if s.Tables["db.late"].Phase != PhaseSnapshot {
		t.Fatalf("the first snapshot of db.late was stopped: %+v", s.Tables["db.late"])
	}
	roundTrip(t, s)
}

// A table catching up restarts its snapshot from its catch-up start; one
// in a snapshot already, or a signal of another kind, is left alone.
func TestExecuteSnapshotOfOtherPhases(t *testing.T) {
	s := signalState()
	s.StartCatchUp("db.a", mustBound("2025-12-31 23:59:00"))
	s.NoteSignal("db.a", PendingSignal{ID: "x", Kind: SignalExecuteSnapshot})
	s.NoteSignal("db.late", PendingSignal{ID: "x", Kind: SignalExecuteSnapshot})
	s.NoteSignal("db.b", PendingSignal{ID: "y", Kind: "bogus"})
	end := mustBound("2026-01-01 00:00:01")
	s.AdvanceChain(end)
	res := s.ApplySignals(end)
	want := map[string]string{"db.a": SignalStarted, "db.b": SignalIgnored, "db.late": SignalIgnored}
	for _, r := range res {
		if want[r.Table] != r.Outcome {
			t.Fatalf("%s: %s (%s), want %s", r.Table, r.Outcome, r.Reason, want[r.Table])
		}
	}
	if a := s.Tables["db.a"]; a.Phase != PhaseSnapshot || a.Start != mustBound("2025-12-31 23:59:00") || a.CatchUp != nil {
		t.Fatalf("db.a: %+v", a)
	}
	if b := s.Tables["db.b"]; b.Phase != PhaseBinlog || b.Pending != nil {
		t.Fatalf("db.b: %+v", b)
	}
}

// Checkpoints written before signals still load; the new fields round-trip
// and are checked.
func TestSignalFieldsDecode(t *testing.T) {
	old := `{"version":3,"window_zone":"UTC","stream":{"start":"2026-01-01 00:00:00"},"tables":{"db.a":{"phase":"binlog"}},"seq":1,"saved_at":"2026-01-01T00:00:00Z"}`
	if _, err := Decode([]byte(old)); err != nil {
		t.Fatalf("an old checkpoint: %v", err)
	}
	withSignals := `{"version":3,"window_zone":"UTC","stream":{"start":"2026-01-01 00:00:00"},"tables":{` +
		`"db.a":{"phase":"binlog","pending_signal":{"id":"s9","kind":"stop-snapshot"}},` +
		`"db.b":{"phase":"snapshot","start":"2025-12-31 00:00:00","snapshot_done_tablets":"5","signal":"s8","signal_filter":"id = 1"}},"seq":2,"saved_at":"2026-01-01T00:00:00Z"}`
	st, err := Decode([]byte(withSignals))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Encode(st)
	if err != nil || string(out) != withSignals {
		t.Fatalf("round trip (%v):\n got %s\nwant %s", err, out, withSignals)
	}
	for _, bad := range []string{
		`"db.a":{"phase":"binlog","signal":"s1"}`,
		`"db.a":{"phase":"snapshot","signal":"s1"}`,
		`"db.a":{"phase":"snapshot","start":"2026-01-01 00:00:00","signal_filter":"x"}`,
		`"db.a":{"phase":"binlog","pending_signal":{"id":"","kind":"execute-snapshot"}}`,
	} {
		in := `{"version":3,"window_zone":"UTC","stream":{"start":"2026-01-01 00:00:00"},"tables":{` + bad + `},"seq":1,"saved_at":"2026-01-01T00:00:00Z"}`
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("decoded %s", bad)
		}
	}
}

func roundTrip(t *testing.T, s *State) {
	t.Helper()
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(s, back) {
		t.Fatalf("round trip changed the state:\n%s", b)
	}
	var enc encoder
	if eb, err := enc.encode(s); err != nil || string(eb) != string(b) {
		t.Fatalf("the Store's encoder differs (%v):\n%s\n%s", err, eb, b)
	}
}
