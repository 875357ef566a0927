package checkpoint

import "fmt"

// Kinds of signal_table rows the input acts on.
const (
	SignalExecuteSnapshot = "execute-snapshot"
	SignalStopSnapshot    = "stop-snapshot"
)

// Outcomes of a signal applied to one table (SignalResult.Outcome).
const (
	// SignalStarted: the table left the chain and takes a new snapshot.
	SignalStarted = "started"
	// SignalStopped: the table's signalled snapshot was cancelled; it
	// catches up from where it left the chain and rejoins it.
	SignalStopped = "stopped"
	// SignalIgnored: the signal does not apply to the table as it stands
	// (Reason says why); nothing changed.
	SignalIgnored = "ignored"
)

// The signal transitions, added to the phase machine of phase.go:
//
//	binlog  ──ApplySignals(execute)──> snapshot (Start: the window end)
//	catchup ──ApplySignals(execute)──> snapshot (Start: its catch-up start)
//	snapshot of a signal ──ApplySignals(stop)──> catchup (from its Start)
//
// A signal read in a chain window is first noted on each table it names
// (NoteSignal), with the batch that delivers its row, so that a restart
// in the middle of the window, which skips that row, still has it. It takes
// effect when the window ends, in the same checkpoint change that moves the
// chain past it: the table has then delivered every change up to the
// window's end from the chain, and its binlog after the new snapshot
// starts there, so no change is lost or delivered twice as a change.

// NoteSignal records p for table key, to apply when the chain's current
// window ends; a later signal of the same window replaces an earlier one.
func (s *State) NoteSignal(key string, p PendingSignal) {
	if t := s.Tables[key]; t != nil {
		t.Pending = &p
	}
}

// SignalResult is what ApplySignals did with one table's signal.
type SignalResult struct {
	Table, ID, Kind, Outcome, Reason string
}

// ApplySignals applies the signals noted on the tables, now that the chain
// moved past its window to end, in table name order. Tables that start a
// snapshot have their DoneTablets cleared; the caller starts their
// snapshot reads.
func (s *State) ApplySignals(end Bound) []SignalResult {
	if !s.hasPending() {
		return nil // every window ends here: no sort of a thousand names
	}
	var out []SignalResult
	for _, key := range s.TableNames() {
		t := s.Tables[key]
		p := t.Pending
		if p == nil {
			continue
		}
		t.Pending = nil
		r := SignalResult{Table: key, ID: p.ID, Kind: p.Kind, Outcome: SignalIgnored}
		switch p.Kind {
		case SignalExecuteSnapshot:
			r.Outcome, r.Reason = s.resnapshot(key, t, end, p)
		case SignalStopSnapshot:
			r.Outcome, r.Reason = s.stopSnapshot(key, t)
		default:
			r.Reason = fmt.Sprintf("unknown kind %q", p.Kind)
		}
		out = append(out, r)
	}
	return out
}

func (s *State) hasPending() bool {
	for _, t := range s.Tables {
		if t.Pending != nil {
			return true
		}
	}
	return false
}

// resnapshot moves t into a new snapshot (Resnapshot) whose binlog starts
// where t stands: at end for a table of the chain, at its catch-up start for
// one catching up (which has no window open between chain windows).
func (s *State) resnapshot(key string, t *Table, end Bound, p *PendingSignal) (outcome, reason string) {
	var start Bound
	switch t.Phase {
	case PhaseBinlog:
		start = end
	case PhaseCatchUp:
		start = t.CatchUp.Start
	case PhaseSnapshot:
		return SignalIgnored, "it is taking a snapshot already"
	default:
		return SignalIgnored, "it has no binlog phase"
	}
	if err := s.Resnapshot(key, BySignal(p.ID, p.Filter), BinlogFrom(start)); err != nil {
		return SignalIgnored, err.Error()
	}
	return SignalStarted, ""
}

// stopSnapshot ends t's signalled snapshot: the rows it delivered stay
// delivered, and t catches up from where it left the chain, losing no
// change. A snapshot that is not a signal's is left alone.
func (s *State) stopSnapshot(key string, t *Table) (outcome, reason string) {
	if t.Phase != PhaseSnapshot || t.Signal == "" {
		return SignalIgnored, "no snapshot started by a signal is in progress"
	}
	t.DoneTablets, t.Signal, t.SignalFilter = nil, "", ""
	s.StartCatchUp(key, t.Start)
	return SignalStopped, ""
}

// PendingStops names the tables whose signalled snapshot a stop-snapshot
// noted in the current window ends when the window does.
func (s *State) PendingStops() []string {
	if !s.hasPending() {
		return nil
	}
	var keys []string
	for _, key := range s.TableNames() {
		t := s.Tables[key]
		if t.Pending != nil && t.Pending.Kind == SignalStopSnapshot && t.Phase == PhaseSnapshot && t.Signal != "" {
			keys = append(keys, key)
		}
	}
	return keys
}

// validateSignals checks the signal fields of table name.
func validateSignals(name string, t *Table, hasStream bool) error {
	if (t.Signal != "" || t.SignalFilter != "") && t.Phase != PhaseSnapshot {
		return fmt.Errorf("table %s: signal is set only in phase snapshot; got phase %s", name, t.Phase)
	}
	if t.SignalFilter != "" && t.Signal == "" {
		return fmt.Errorf("table %s: signal_filter is set without a signal", name)
	}
	if t.Signal != "" && t.Start.IsZero() {
		return fmt.Errorf("table %s: a signalled snapshot needs a start", name)
	}
	if p := t.Pending; p != nil {
		if !hasStream {
			return fmt.Errorf("table %s: pending_signal without a stream", name)
		}
		if p.ID == "" || p.Kind == "" {
			return fmt.Errorf("table %s: pending_signal needs an id and a kind", name)
		}
	}
	return nil
}
