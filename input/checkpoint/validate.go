package checkpoint

import (
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

func validate(s *State) error {
	if err := validateHead(s); err != nil {
		return err
	}
	for name, t := range s.Tables {
		if err := validateTable(name, t, s.Stream != nil); err != nil {
			return err
		}
	}
	return nil
}

// validateHead checks a state apart from its table entries, which
// validateTable checks one by one (the Store's encoder only those that
// changed since its last save).
func validateHead(s *State) error {
	if s.Tables == nil {
		return fmt.Errorf("tables is missing")
	}
	if s.Stream != nil {
		return validateWindow("stream", s.Stream)
	}
	return nil
}

func validateTable(name string, t *Table, hasStream bool) error {
	if _, _, err := doris.ParseTableIdentifier(name); err != nil || t == nil {
		return fmt.Errorf("tables holds an invalid entry %q", name)
	}
	switch t.Phase {
	case PhaseSnapshot, PhaseDone:
	case PhaseCatchUp, PhaseBinlog:
		if !hasStream {
			return fmt.Errorf("table %s is in phase %s without a stream", name, t.Phase)
		}
	default:
		return fmt.Errorf("table %s: phase must be one of snapshot, catchup, binlog, done; got %q", name, t.Phase)
	}
	for _, id := range t.DoneTablets {
		if id <= 0 {
			return fmt.Errorf("table %s: snapshot_done_tablets holds invalid tablet id %d", name, id)
		}
	}
	if t.MaxTablet < 0 {
		return fmt.Errorf("table %s: max_tablet must not be negative", name)
	}
	if t.SnapshotTSO < 0 {
		return fmt.Errorf("table %s: snapshot_tso must not be negative; got %d", name, t.SnapshotTSO)
	}
	if (t.Phase == PhaseCatchUp) != (t.CatchUp != nil) {
		return fmt.Errorf("table %s: catchup is set exactly in phase catchup", name)
	}
	if err := validateSignals(name, t, hasStream); err != nil {
		return err
	}
	if t.CatchUp != nil {
		return validateWindow("table "+name+" catchup", t.CatchUp)
	}
	return nil
}

// validateWindow checks the order of w's bounds. Their text was checked
// once, where the state was decoded (wire.go): a save compares typed values
// and parses nothing.
func validateWindow(what string, w *Window) error {
	if w.Start.IsZero() {
		return fmt.Errorf("%s start must match yyyy-MM-dd HH:mm:ss; got %q", what, "")
	}
	if !w.End.IsZero() && w.End.Before(w.Start) {
		return fmt.Errorf("%s end %q is before its start %q", what, w.End, w.Start)
	}
	prev := w.End
	if prev.IsZero() {
		prev = w.Start
	}
	for _, e := range w.Planned {
		if !e.After(prev) {
			return fmt.Errorf("%s planned_ends must be ascending timestamps after the window; got %q after %q", what, e, prev)
		}
		prev = e
	}
	if w.Last == nil {
		return nil
	}
	if w.End.IsZero() {
		return fmt.Errorf("%s has a last row but no end", what)
	}
	return w.Last.validate(what)
}
