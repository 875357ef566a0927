package doris

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffPolicyGrowsAndIsCapped(t *testing.T) {
	p := BackoffPolicy{Base: 200 * time.Millisecond, Max: 5 * time.Second}
	for attempt := 1; attempt < 12; attempt++ {
		ceiling := min(p.Base<<(attempt-1), p.Max)
		for range 20 {
			if d := p.Wait(attempt); d < ceiling/2 || d > ceiling {
				t.Fatalf("attempt %d: %s outside [%s, %s]", attempt, d, ceiling/2, ceiling)
			}
		}
	}
	exact := BackoffPolicy{Base: time.Second, Max: 30 * time.Second, NoJitter: true}
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 6: 30 * time.Second, 40: 30 * time.Second} {
		if d := exact.Wait(attempt); d != want {
			t.Errorf("NoJitter attempt %d: %s, want %s", attempt, d, want)
		}
	}
	if d := (BackoffPolicy{}).Wait(3); d != 0 {
		t.Errorf("zero policy waits %s", d)
	}
}

// WaitWithin never starts a wait that would end after MaxElapsed, which is
// how the doris cache's backoff.max_elapsed_time bounds an operation.
func TestBackoffPolicyWaitWithin(t *testing.T) {
	p := BackoffPolicy{Base: time.Second, Max: time.Second, MaxElapsed: 10 * time.Second, NoJitter: true}
	if d, ok := p.WaitWithin(3, 9*time.Second); !ok || d != time.Second {
		t.Fatalf("within budget: %s %v", d, ok)
	}
	if _, ok := p.WaitWithin(3, 9*time.Second+time.Millisecond); ok {
		t.Fatal("a wait past MaxElapsed was allowed")
	}
	unbounded := BackoffPolicy{Base: time.Second, Max: time.Second}
	if _, ok := unbounded.WaitWithin(1000, 1000*time.Hour); !ok {
		t.Fatal("no MaxElapsed must leave the bound to the caller")
	}
}

func TestBackoffPolicySleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (BackoffPolicy{Base: time.Hour, Max: time.Hour}).Sleep(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}
