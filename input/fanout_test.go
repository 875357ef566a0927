package input

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestForEachTableRunsEveryIndexWithinTheBound(t *testing.T) {
	var running, peak, calls atomic.Int64
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- forEachTable(context.Background(), 40, func(ctx context.Context, i int) error {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if calls.Add(1) == startupRequestsAtOnce {
				close(release) // the first bound's worth all started before any returned
			}
			<-release
			running.Add(-1)
			return nil
		})
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 40 || peak.Load() != startupRequestsAtOnce {
		t.Fatalf("calls %d, at most %d at once; want 40 and %d", calls.Load(), peak.Load(), startupRequestsAtOnce)
	}
}

func TestForEachTableReturnsTheFirstFailureInIndexOrder(t *testing.T) {
	started := make(chan struct{})
	err := forEachTable(context.Background(), 3, func(ctx context.Context, i int) error {
		switch i {
		case 0:
			// Fails only because index 1's failure cancels it: not the cause.
			<-started
			<-ctx.Done()
			return fmt.Errorf("table 0: %w", ctx.Err())
		case 1:
			close(started)
			return errors.New("table 1 failed")
		}
		return errors.New("table 2 failed")
	})
	if err == nil || err.Error() != "table 1 failed" && err.Error() != "table 2 failed" {
		t.Fatalf("got %v, want a real failure rather than the cancellation", err)
	}
	err = forEachTable(context.Background(), 20, func(ctx context.Context, i int) error {
		if i == 3 || i == 5 {
			return fmt.Errorf("table %d failed", i)
		}
		return nil
	})
	if err == nil || err.Error() != "table 3 failed" {
		t.Fatalf("got %v, want table 3's failure", err)
	}
}

func TestForEachTableStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int64
	err := forEachTable(ctx, 100, func(ctx context.Context, i int) error {
		calls.Add(1)
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) || calls.Load() > startupRequestsAtOnce {
		t.Fatalf("err %v after %d calls; want context.Canceled and at most %d calls", err, calls.Load(), startupRequestsAtOnce)
	}
}
