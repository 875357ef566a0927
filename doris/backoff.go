package doris

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff returns the wait before retry attempt (1-based): base doubling per
// retry, capped at maxD, jittered into [d/2, d] so that several clients do
// not return to a recovering FE in lockstep. The input's FE client, its
// window and split retries, and doris_load all wait this way.
func Backoff(base, maxD time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < maxD; i++ {
		d *= 2
	}
	d = min(d, maxD)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
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
