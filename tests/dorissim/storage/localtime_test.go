package storage

import (
	"testing"
	"time"
)

func TestLocalInstantAtTransitions(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	utc := func(h, m, s int, d time.Time) time.Time {
		return time.Date(d.Year(), d.Month(), d.Day(), h, m, s, 0, time.UTC)
	}
	nyFall := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	nySpring := time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC)
	beSpring := time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)
	beFall := time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name         string
		loc          *time.Location
		wall         time.Time
		shift, trans time.Time
		exists       bool
	}{
		{"NY before the repeated hour", ny, utc(0, 59, 59, nyFall), utc(4, 59, 59, nyFall), utc(4, 59, 59, nyFall), true},
		{"NY repeated hour is EDT", ny, utc(1, 30, 0, nyFall), utc(5, 30, 0, nyFall), utc(5, 30, 0, nyFall), true},
		{"NY after the repeated hour", ny, utc(2, 0, 0, nyFall), utc(7, 0, 0, nyFall), utc(7, 0, 0, nyFall), true},
		{"NY gap", ny, utc(2, 30, 0, nySpring), utc(7, 30, 0, nySpring), utc(7, 0, 0, nySpring), false},
		{"Berlin gap", berlin, utc(2, 30, 0, beSpring), utc(1, 30, 0, beSpring), utc(1, 0, 0, beSpring), false},
		{"Berlin gap start", berlin, utc(2, 0, 0, beSpring), utc(1, 0, 0, beSpring), utc(1, 0, 0, beSpring), false},
		{"Berlin after the gap", berlin, utc(3, 0, 0, beSpring), utc(1, 0, 0, beSpring), utc(1, 0, 0, beSpring), true},
		{"Berlin repeated hour is CEST", berlin, utc(2, 30, 0, beFall), utc(0, 30, 0, beFall), utc(0, 30, 0, beFall), true},
		{"fixed offset", time.FixedZone("+08:00", 8*3600), utc(8, 0, 0, nyFall), utc(0, 0, 0, nyFall), utc(0, 0, 0, nyFall), true},
	} {
		got, exists := LocalInstant(tc.wall, tc.loc, GapShiftForward)
		if !got.Equal(tc.shift) || exists != tc.exists {
			t.Errorf("%s: shift-forward %s (exists %v), want %s (%v)", tc.name, got.UTC(), exists, tc.shift, tc.exists)
		}
		got, _ = LocalInstant(tc.wall, tc.loc, GapTransition)
		if !got.Equal(tc.trans) {
			t.Errorf("%s: transition %s, want %s", tc.name, got.UTC(), tc.trans)
		}
		if back := WallClock(got, tc.loc); tc.exists && !back.Equal(tc.wall) {
			t.Errorf("%s: wall clock of %s is %s, want %s", tc.name, got.UTC(), back, tc.wall)
		}
	}
}

// TestIncrBoundsAtTransitions checks the FE's reading of @incr bounds:
// LocalDateTime.atZone, so the earlier instant in a repeated hour and a
// shift past a gap; Go's own ParseInLocation picks otherwise for New York's
// gap and Berlin's repeated hour.
func TestIncrBoundsAtTransitions(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		loc  *time.Location
		in   string
		want time.Time
	}{
		{ny, "2026-11-01 01:00:05", time.Date(2026, 11, 1, 5, 0, 5, 0, time.UTC)},
		{ny, "2026-03-08 02:30:00", time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC)},
		{berlin, "2026-10-25 02:00:05", time.Date(2026, 10, 25, 0, 0, 5, 0, time.UTC)},
		{berlin, "2026-03-29 02:30:00", time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)},
	} {
		req, err := parseIncrParams(IncrParams{Params: map[string]string{paramStart: tc.in}, Location: tc.loc})
		if err != nil || !req.hasStart || req.startMs != tc.want.UnixMilli() {
			t.Errorf("%s in %s: %+v %v, want %s", tc.in, tc.loc, req, err, tc.want)
		}
	}
}
