package windowplan

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNextTickRunsJustAfterAWholeSecond(t *testing.T) {
	base := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		last     time.Duration // after base
		interval time.Duration
		want     time.Duration // after base
	}{
		{950 * time.Millisecond, time.Second, 2*time.Second + TickSlack}, // not at 1.95
		{TickSlack, time.Second, time.Second + TickSlack},                // stays aligned, no drift
		{0, 10 * time.Second, 10*time.Second + TickSlack},                // at least the interval
		{500 * time.Millisecond, 1500 * time.Millisecond, 2*time.Second + TickSlack},
	}
	for _, c := range cases {
		got := NextTick(base.Add(c.last), c.interval).Sub(base)
		if got != c.want {
			t.Errorf("NextTick(+%s, %s) = +%s, want +%s", c.last, c.interval, got, c.want)
		}
		if got < c.last+c.interval-TickTolerance {
			t.Errorf("NextTick(+%s, %s) = +%s is much sooner than the interval", c.last, c.interval, got)
		}
	}
}

// A window ends at the Doris time of the first poll past its start; a poll
// still in the start's second asks again, and a clock before the start is
// the FE's clock going back.
func TestEndPassesTheStartOrWaits(t *testing.T) {
	start := mustBound(t, "2026-12-01 10:00:00")
	for _, tc := range []struct {
		now    Bound
		end    Bound
		ok     bool
		goback bool
	}{
		{start + 3000, start + 3000, true, false},
		{start + 1000, start + 1000, true, false},
		{start, 0, false, false},
		{start - 1000, 0, false, true},
	} {
		end, ok, err := End(start, tc.now)
		var back *ClockBackError
		if end != tc.end || ok != tc.ok || errors.As(err, &back) != tc.goback || (err != nil) != tc.goback {
			t.Errorf("End(%s, %s) = %s, %v, %v; want %s, %v, clock back %v", start, tc.now, end, ok, err, tc.end, tc.ok, tc.goback)
		}
		if tc.goback && !strings.Contains(err.Error(), "moved backwards from 2026-12-01 10:00:00 to 2026-12-01 09:59:59") {
			t.Errorf("clock back error %q does not name both times", err)
		}
	}
}
