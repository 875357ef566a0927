package input

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
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

func chainFixture(t *testing.T, clock dorisClock) *coordinator {
	t.Helper()
	res := service.MockResources()
	conf := &Config{PollInterval: time.Second}
	return &coordinator{runEnv: runEnv{conf: conf, log: res.Logger(), m: newMetrics(res.Metrics()), c: &conn{}, clock: clock}}
}

// A window ends at the first Doris second past its start; a clock that
// has not moved on is asked again at the next tick.
func TestWindowEndWaitsForTheClockToPassTheStart(t *testing.T) {
	start := mustBound(t, "2026-12-01 10:00:00")
	clock := &fakeClock{answers: []bound{start, start + 3000}}
	co := chainFixture(t, clock)
	end, err := (&chain{co: co}).windowEnd(context.Background(), start)
	if err != nil || end != start+3000 {
		t.Fatalf("windowEnd = %s, %v; want %s", end, err, start+3000)
	}
	if clock.calls != 2 {
		t.Fatalf("asked the clock %d times, want 2", clock.calls)
	}
}

func TestWindowEndStopsWhenTheClockGoesBack(t *testing.T) {
	start := mustBound(t, "2026-12-01 10:00:00")
	co := chainFixture(t, &fakeClock{answers: []bound{start - 1000}})
	_, err := (&chain{co: co}).windowEnd(context.Background(), start)
	if !isFatal(err) || !strings.Contains(err.Error(), "moved backwards") {
		t.Fatalf("a clock before the start: %v, want a fatal error", err)
	}
}
