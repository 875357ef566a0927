package windowplan

import (
	"fmt"
	"time"
)

// TickSlack is how long after a whole second a poll runs.
const TickSlack = 30 * time.Millisecond

// TickTolerance is how much sooner than last+interval a tick may run.
const TickTolerance = 200 * time.Millisecond

// NextTick is the first moment, at least interval after last, that lies just
// after a whole second. Window ends are Doris seconds (floored), so a poll
// right after a second boundary closes the window as soon as its last second
// has passed; a poll at x.95 would leave commits of that second waiting one
// more interval. The alignment uses the local clock: a skew from the FE's
// only costs latency, never correctness.
func NextTick(last time.Time, interval time.Duration) time.Time {
	t := last.Add(interval)
	aligned := t.Truncate(time.Second).Add(TickSlack)
	// Ticks run a little late, so last+interval usually lies just past the
	// aligned moment of its own second; that moment still counts.
	if aligned.Before(t.Add(-TickTolerance)) {
		aligned = aligned.Add(time.Second)
	}
	return aligned
}

// ClockBackError is a Doris time before the start of the window it was
// to end: the FE's clock went back. Bounds are UTC, so a daylight-saving
// change never moves them back; only a real clock fault of the FE does,
// and no window can be chosen until the clock passes the start again.
type ClockBackError struct{ Start, Now Bound }

func (e *ClockBackError) Error() string {
	return fmt.Sprintf("current Doris timestamp moved backwards from %s to %s: the FE's clock went back", e.Start, e.Now)
}

// End decides the end of the window that starts at start from now, the
// Doris time of this poll: now itself once it has passed start (ok); not
// ok while the clock is still in start's second, so the next poll asks
// again; a *ClockBackError when now is before start.
func End(start, now Bound) (end Bound, ok bool, err error) {
	switch {
	case now < start:
		return 0, false, &ClockBackError{Start: start, Now: now}
	case now > start:
		return now, true, nil
	}
	return 0, false, nil
}
