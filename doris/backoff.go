package doris

import (
	"context"
	"math/rand/v2"
	"time"
)

// BackoffPolicy is how every retry loop of the bundle waits between
// attempts: the FE REST client, doris_load's requests and its in-order
// batch retries, the input's window and split retries, the doris cache.
// The wait before retry attempt n (1-based) is Base doubled n-1 times,
// capped at Max, jittered into [d/2, d] so that several clients do not
// return to a recovering FE in lockstep.
type BackoffPolicy struct {
	Base, Max time.Duration
	// MaxElapsed, when positive, bounds a whole operation: no wait is
	// started that would end after it (the doris cache's
	// backoff.max_elapsed_time). Zero: the caller bounds the attempts.
	MaxElapsed time.Duration
	// NoJitter waits exactly d, for loops that log the wait as a promise
	// (doris_load's in-order batch retries).
	NoJitter bool
}

// Wait returns the wait before retry attempt (1-based).
func (p BackoffPolicy) Wait(attempt int) time.Duration {
	d := p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	if p.NoJitter || half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// WaitWithin returns the wait before retry attempt of an operation that
// has run for elapsed, and false when MaxElapsed forbids another attempt.
func (p BackoffPolicy) WaitWithin(attempt int, elapsed time.Duration) (time.Duration, bool) {
	d := p.Wait(attempt)
	if p.MaxElapsed > 0 && elapsed+d > p.MaxElapsed {
		return 0, false
	}
	return d, true
}

// Sleep waits before retry attempt unless ctx ends first.
func (p BackoffPolicy) Sleep(ctx context.Context, attempt int) error {
	return Sleep(ctx, p.Wait(attempt))
}

// Sleep waits d unless ctx ends first, and then returns ctx.Err().
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
