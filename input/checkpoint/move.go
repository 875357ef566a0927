package checkpoint

import (
	"fmt"
	"math"
)

// Operator transitions: what `rpconnect-doris offsets set` and `offsets
// reset` do to a stopped input's state. They keep the stream one order by
// making the table a late joiner: it leaves the chain and catches up on
// its own binlog from the new position (StartCatchUp), and joins the chain
// again where it has delivered nothing of its window (FinishCatchUp), as a
// table discovered while the chain runs does. The other tables keep their
// positions, and the chain goes on without waiting for the moved table.

// MoveTable makes table key read its binlog from the whole second from at
// the next start. With after set, the rows of that second up to after are
// skipped (a TSO inside a second): the first window is then [from,
// from+1s) with after as its last delivered row, which needs that second
// to lie wholly before the chain's start, where the chain has already
// closed it; otherwise the caller starts at the second itself.
//
// A table moved back reads again, on its own, every change from the new
// position up to the chain and then joins it; a table moved forward past
// the chain's start waits, reading nothing, until the chain has passed
// that position, catches up the rest and joins. A signal noted on the
// table, or the snapshot of one it is taking, is dropped.
func (s *State) MoveTable(key string, from Bound, after *Pos) error {
	t := s.Tables[key]
	switch {
	case t == nil:
		return fmt.Errorf("table %s is not in the checkpoint", key)
	case s.Stream == nil:
		return fmt.Errorf("table %s: the checkpoint has no binlog stream (scan_mode snapshot), so it has no position to set", key)
	case from.IsZero():
		return fmt.Errorf("table %s: the new position is not set", key)
	}
	s.StartCatchUp(key, from)
	// The operator's position replaces what a signal did to the table: a
	// pending signal would move it again at the window's end.
	t.DoneTablets, t.Signal, t.SignalFilter, t.Pending = nil, "", "", nil
	if after == nil {
		return nil
	}
	end := BoundAt(from.Ms() + 1000)
	if end.After(s.Stream.Start) {
		return fmt.Errorf("table %s: the second %s is not behind the chain's start %s, so a TSO inside it cannot be skipped to", key, from, s.Stream.Start)
	}
	if err := after.validate("table " + key + " position"); err != nil {
		return err
	}
	t.CatchUp = &Window{Start: from, End: end, Last: after}
	return nil
}

// LastBefore is the last position a row of table before TSO tso can
// have: skipping to it delivers table's rows from tso on.
func LastBefore(table string, tso int64) Pos {
	return Pos{TSO: tso - 1, Table: table, LSN: math.MaxInt64, Op: 3}
}

// SnapshotOption shapes the snapshot Resnapshot starts.
type SnapshotOption func(*snapshotPlan)

type snapshotPlan struct {
	signal, filter string
	binlogFrom     Bound
}

// BySignal makes the snapshot signal_table row id's, reading only the
// rows that match filter (every row when it is empty).
func BySignal(id, filter string) SnapshotOption {
	return func(p *snapshotPlan) { p.signal, p.filter = id, filter }
}

// BinlogFrom starts the table's binlog after the snapshot at start, where
// it stands, instead of at the chain's start. A snapshot taken while the
// stream runs needs it: a filtered snapshot does not read the rows whose
// changes a table catching up has not delivered yet.
func BinlogFrom(start Bound) SnapshotOption {
	return func(p *snapshotPlan) { p.binlogFrom = start }
}

// Resnapshot makes table key take a new snapshot: at the next start for
// `offsets reset`, at once for a signal (ApplySignals). Every other
// progress of the table is dropped: its tablets done, its catch-up, and
// any signal it had noted or was taking a snapshot for, so the options
// alone say whose snapshot it is.
//
// With a stream, its binlog then begins at the chain's start (or where
// BinlogFrom says), which precedes the new snapshot, so no change is lost
// (changes between it and the snapshot come in both, as for a table that
// joins later); the chain does not wait for it. Without a stream it is read
// and done again.
func (s *State) Resnapshot(key string, opts ...SnapshotOption) error {
	t := s.Tables[key]
	if t == nil {
		return fmt.Errorf("table %s is not in the checkpoint", key)
	}
	var p snapshotPlan
	for _, o := range opts {
		o(&p)
	}
	start := p.binlogFrom
	switch {
	case s.Stream == nil && (p.signal != "" || !start.IsZero()):
		return fmt.Errorf("table %s: the checkpoint has no binlog stream, so a signal cannot start a snapshot of it", key)
	case s.Stream != nil && start.IsZero():
		start = s.Stream.Start
	}
	t.Phase, t.Start, t.DoneTablets, t.CatchUp = PhaseSnapshot, start, nil, nil
	t.Signal, t.SignalFilter, t.Pending = p.signal, p.filter, nil
	t.SnapshotTSO = 0
	if !start.IsZero() {
		t.SnapshotTSO = resnapshotTSO(start)
	}
	return nil
}
