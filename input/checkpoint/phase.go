package checkpoint

import "slices"

// The table phase machine. Every change of a table's phase, and of the
// shared chain, goes through these transitions, so that what validate
// accepts is what the input can produce:
//
//	AddTable ─┬─> snapshot ──FinishSnapshot──┬─> done       (no binlog phase)
//	          │                              ├─> binlog     (started with the chain)
//	          │                              └─> catchup    (joined later: StartCatchUp)
//	          └─> binlog                      catchup ──FinishCatchUp──> binlog (JoinChain)
//
// A catching-up table joins the chain only where the chain has delivered
// nothing of its current window: every row of the table before that point
// came from its catch-up, and every row from it on comes from the chain.
//
// A table that is not in s is left alone by every transition: it was
// dropped while a read of it was still under way. Signals (signal.go) add
// transitions from binlog and catchup back to snapshot, and from a
// signalled snapshot to catchup.

// AddTable enters table key into s. With snapshot it starts in its snapshot
// phase, and start, when set, is where its own binlog begins once the
// snapshot is done (a table that joins a running chain); without snapshot
// it is read by the chain from its next window. maxTablet is the highest
// tablet id it has now.
func (s *State) AddTable(key string, snapshot bool, start Bound, maxTablet int64) {
	t := &Table{Phase: PhaseBinlog, MaxTablet: maxTablet}
	if snapshot {
		t.Phase, t.Start = PhaseSnapshot, start
	}
	s.Tables[key] = t
}

// DropTable removes table key from s.
func (s *State) DropTable(key string) { delete(s.Tables, key) }

// NoteMaxTablet raises the highest tablet id seen of table key.
func (s *State) NoteMaxTablet(key string, maxTablet int64) {
	if t := s.Tables[key]; t != nil && maxTablet > t.MaxTablet {
		t.MaxTablet = maxTablet
	}
}

// SnapshotTabletsDone records snapshot tablets of table key as delivered.
func (s *State) SnapshotTabletsDone(key string, tablets []int64) {
	if t := s.Tables[key]; t != nil && t.Phase == PhaseSnapshot && len(tablets) > 0 {
		t.DoneTablets = append(slices.Clip(t.DoneTablets), tablets...)
	}
}

// FinishSnapshot moves table key past its snapshot: without a stream it is
// done, a table that started with the chain joins it, and one that joined
// later catches up from its own start. It returns the new phase, or "" when
// the table is not in s.
func (s *State) FinishSnapshot(key string) string {
	t := s.Tables[key]
	if t == nil {
		return ""
	}
	t.DoneTablets, t.Signal, t.SignalFilter = nil, "", ""
	switch {
	case s.Stream == nil:
		t.Phase = PhaseDone
	case t.Start.IsZero():
		t.Phase = PhaseBinlog
	default:
		s.StartCatchUp(key, t.Start)
	}
	return t.Phase
}

// BinlogStart is where table key's binlog begins once its snapshot is done,
// as FinishSnapshot moves it on: its own start when it joined later, the
// chain's when it started with it (the chain waits at its start for such
// tables), and the zero Bound without a stream or for a table not in s.
func (s *State) BinlogStart(key string) Bound {
	t := s.Tables[key]
	switch {
	case t == nil || s.Stream == nil:
		return Bound{}
	case !t.Start.IsZero():
		return t.Start
	default:
		return s.Stream.Start
	}
}

// StartCatchUp makes table key read its own binlog from start, until it
// reaches the chain.
func (s *State) StartCatchUp(key string, start Bound) {
	if t := s.Tables[key]; t != nil {
		t.Phase, t.Start, t.CatchUp = PhaseCatchUp, start, &Window{Start: start}
	}
}

// CatchUpProgress records the last delivered row of table key's catch-up
// window [start, end).
func (s *State) CatchUpProgress(key string, start, end Bound, last Pos) {
	if t := s.Tables[key]; t != nil && t.Phase == PhaseCatchUp {
		t.CatchUp = &Window{Start: start, End: end, Last: &last}
	}
}

// CatchUpWindow is the window table key reads next to catch up, with the
// last row of it already delivered: the window it chose before a restart,
// or one from where it stands to the chain's start. due is false while it
// has nothing to read: the chain has not reached its start yet, or stands
// there in the middle of a window (see FinishCatchUp), which the table
// reads once the chain is past it; w is then the table's window as it
// stands, with no end.
func (s *State) CatchUpWindow(key string) (w Window, due bool) {
	t := s.Tables[key]
	if t == nil || t.Phase != PhaseCatchUp || t.CatchUp == nil || s.Stream == nil {
		return Window{}, false
	}
	w = *t.CatchUp.Clone()
	if !w.End.IsZero() {
		return w, true
	}
	if w.Start.After(s.Stream.Start) || w.Start == s.Stream.Start && s.Stream.Last != nil {
		return w, false
	}
	w.End = s.Stream.Start
	return w, true
}

// FinishCatchUp closes table key's catch-up window, which ended at end: if
// that is where the chain is now, and the chain has delivered no row of
// its current window yet, the table joins it; otherwise the table catches
// up the rest next, from end. It reports whether the table joined.
//
// A chain that stands in the middle of a window (a restart resumes it
// after its last delivered row, for every table it reads) is no place to
// join: the joining table's rows of that window up to the chain's last row
// were never delivered, yet the resumed read would skip them. So the table
// waits at the window's start, and reads the whole window on its own once
// the chain has finished it.
func (s *State) FinishCatchUp(key string, end Bound) bool {
	t := s.Tables[key]
	if t == nil || t.Phase != PhaseCatchUp {
		return false
	}
	forgetSnapshotTSO(t, end)
	if s.Stream != nil && end == s.Stream.Start && s.Stream.Last == nil {
		s.JoinChain(key)
		return true
	}
	s.StartCatchUp(key, end)
	return false
}

// JoinChain makes table key one of the tables every chain window reads.
func (s *State) JoinChain(key string) {
	if t := s.Tables[key]; t != nil {
		t.Phase, t.CatchUp, t.Start = PhaseBinlog, nil, Bound{}
	}
}

// StartChain sets the start of the shared chain, for a fresh start.
func (s *State) StartChain(start Bound) { s.Stream = &Window{Start: start} }

// ChainProgress records the last delivered row of the chain's window
// [start, end).
func (s *State) ChainProgress(start, end Bound, last Pos) {
	s.Stream = &Window{Start: start, End: end, Last: &last}
}

// AdvanceChain moves the chain past its finished window, which ended at end.
func (s *State) AdvanceChain(end Bound) {
	s.Stream = &Window{Start: end}
	s.forgetChainSnapshotTSOs(end)
}
