package storage

import "time"

// GapRule says which instant a wall-clock time inside a spring-forward gap
// (a local time that never happens) stands for. A repeated local time (the
// fall-back hour) always means the earlier instant, in the FE and in the BE.
type GapRule int

const (
	// GapShiftForward is Java's LocalDateTime.atZone: the time moves later by
	// the length of the gap (02:30 in a 02:00→03:00 gap is 03:30). The FE
	// uses it for @incr bounds (TimeUtils.timeStringToLong) and when it folds
	// UNIX_TIMESTAMP / CONVERT_TZ of constants.
	GapShiftForward GapRule = iota
	// GapTransition is cctz::convert: the instant of the transition itself
	// (02:30 in a 02:00→03:00 gap is 03:00). The BE uses it for values it
	// computes from columns.
	GapTransition
)

// LocalInstant is the instant that the wall clock of wall (its fields read
// as written, its own location ignored) shows in loc, resolved at DST
// transitions as Doris resolves it: the earlier instant for a repeated time,
// rule for a skipped one. exists is false for a skipped time.
func LocalInstant(wall time.Time, loc *time.Location, rule GapRule) (instant time.Time, exists bool) {
	civil := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(),
		wall.Nanosecond(), time.UTC)
	// Every offset that could apply within a day of the wall clock; Go's own
	// time.Date picks one of two candidates at a transition without saying
	// which, so the candidates are checked one by one.
	var offsets []int
	for _, d := range []time.Duration{-26 * time.Hour, 0, 26 * time.Hour} {
		_, off := civil.Add(d).In(loc).Zone()
		if !containsInt(offsets, off) {
			offsets = append(offsets, off)
		}
	}
	var best time.Time
	found := false
	for _, off := range offsets {
		t := civil.Add(-time.Duration(off) * time.Second)
		if _, actual := t.In(loc).Zone(); actual != off {
			continue // this offset is not in effect at that instant
		}
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	if found {
		return best.In(loc), true
	}
	// A gap: the clock jumped over this wall time. Shifting by the offset in
	// effect before the gap moves it later by the gap's length, as Java does.
	before := offsetBefore(civil, loc)
	shifted := civil.Add(-time.Duration(before) * time.Second).In(loc)
	if rule == GapTransition {
		start, _ := shifted.ZoneBounds()
		return start.In(loc), false
	}
	return shifted, false
}

// offsetBefore is the smaller of the offsets around a gap: a gap only opens
// when the offset grows, so the pre-transition offset is the smaller one.
func offsetBefore(civil time.Time, loc *time.Location) int {
	_, a := civil.Add(-26 * time.Hour).In(loc).Zone()
	_, b := civil.Add(26 * time.Hour).In(loc).Zone()
	return min(a, b)
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// WallClock is the wall clock instant t shows in loc, as a zoneless value
// (fields labelled UTC), the form DATETIME values take in the simulator.
func WallClock(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
}
