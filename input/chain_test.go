package input

import (
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
		{950 * time.Millisecond, time.Second, 2*time.Second + tickSlack}, // not at 1.95
		{tickSlack, time.Second, time.Second + tickSlack},                // stays aligned, no drift
		{0, 10 * time.Second, 10*time.Second + tickSlack},                // at least the interval
		{500 * time.Millisecond, 1500 * time.Millisecond, 2*time.Second + tickSlack},
	}
	for _, c := range cases {
		got := nextTick(base.Add(c.last), c.interval).Sub(base)
		if got != c.want {
			t.Errorf("nextTick(+%s, %s) = +%s, want +%s", c.last, c.interval, got, c.want)
		}
		if got < c.last+c.interval-tickTolerance {
			t.Errorf("nextTick(+%s, %s) = +%s is much sooner than the interval", c.last, c.interval, got)
		}
	}
}
