package checkpoint

import "fmt"

// WindowZoneUTC is the zone of the window bounds and table starts this
// version writes. Doris parses @incr bounds in the session time_zone, and the
// input runs every session in UTC, so a bound is one instant even across
// daylight-saving changes.
const WindowZoneUTC = "UTC"

// InFEZone reports whether s holds wall times of the FE's time zone: a
// version 1 state, or a version 2 state written before window_zone existed.
// The input converts such a state once (ToUTC) before using it.
func (s *State) InFEZone() bool { return s.WindowZone == "" }

// ToUTC rewrites every window bound and table start of s with conv, which
// maps an FE-zone wall time to the UTC bound of the same instant, and marks
// s as UTC. It stops at the first error and then leaves s unchanged.
func (s *State) ToUTC(conv func(Bound) (Bound, error)) error {
	cp := s.Clone()
	var err error
	convert := func(p *Bound) {
		if err != nil || p.IsZero() {
			return
		}
		var out Bound
		if out, err = conv(*p); err == nil {
			*p = out
		}
	}
	convertWindow := func(w *Window) {
		if w != nil {
			convert(&w.Start)
			convert(&w.End)
		}
	}
	convertWindow(cp.Stream)
	for _, t := range cp.Tables {
		convert(&t.Start)
		convertWindow(t.CatchUp)
	}
	if err != nil {
		return err
	}
	cp.WindowZone = WindowZoneUTC
	if err := validate(cp); err != nil {
		return fmt.Errorf("checkpoint converted to UTC: %w", err)
	}
	*s = *cp
	return nil
}
