package input

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

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
	clock := &fakeClock{answers: []windowplan.Bound{start, start + 3000}}
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
	co := chainFixture(t, &fakeClock{answers: []windowplan.Bound{start - 1000}})
	_, err := (&chain{co: co}).windowEnd(context.Background(), start)
	if !isFatal(err) || !strings.Contains(err.Error(), "moved backwards") {
		t.Fatalf("a clock before the start: %v, want a fatal error", err)
	}
}
