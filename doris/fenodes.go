package doris

import (
	"context"
	"fmt"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// FERotation is the order in which a client tries its FEs, the one FE
// order policy of the bundle (the FE REST client and the doris_load
// transport share it): the FEs in the order fenodes lists them, starting
// from the FE that last answered, so a healthy FE keeps serving, the user's
// first FE serves while it answers, and the others are tried in turn when
// it fails. Attempt i of a call goes to FE (start+i) mod n.
type FERotation struct {
	fes []string

	mu   sync.Mutex
	pref int // index of the FE that last answered
}

// NewFERotation rotates over fes, which must not be empty.
func NewFERotation(fes []string) *FERotation {
	return &FERotation{fes: append([]string(nil), fes...)}
}

// Start is where a call begins: the FE that last answered.
func (r *FERotation) Start() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pref
}

// At is the FE of attempt i of a call that began at start.
func (r *FERotation) At(start, i int) string { return r.fes[(start+i)%len(r.fes)] }

// MarkGood makes fe, which just answered, where the next call begins.
func (r *FERotation) MarkGood(fe string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, f := range r.fes {
		if f == fe {
			r.pref = i
			return
		}
	}
}

// RetryPolicy is how one call is retried over the FEs.
type RetryPolicy struct {
	Attempts int // in total, at least 1
	Backoff  BackoffPolicy
	Log      *service.Logger // one debug line per failed attempt; may be nil
}

// Do runs fn against successive FEs until it succeeds, returns an error
// that is not retryable, the attempts are used up or ctx ends; it sleeps
// p.Backoff between attempts. An error that is not retryable is returned
// as fn gave it, without its Permanent mark (see unmarkPermanent); the
// others name op.
func (r *FERotation) Do(ctx context.Context, p RetryPolicy, op string, fn func(ctx context.Context, fe string) error) error {
	var last error
	start := r.Start()
	for i := range p.Attempts {
		if i > 0 {
			if err := p.Backoff.Sleep(ctx, i); err != nil {
				return fmt.Errorf("%s: %w (last error: %w)", op, err, last)
			}
		}
		fe := r.At(start, i)
		err := fn(ctx, fe)
		if err == nil {
			r.MarkGood(fe)
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			// The attempt may have failed on its own just as ctx ended; the
			// caller asked to stop, so that is what the error must say.
			return fmt.Errorf("%s: %w (last error: %w)", op, ctxErr, err)
		}
		if IsPermanent(err) {
			return unmarkPermanent(err)
		}
		last = err
		// The caller reports the incident once; each attempt is detail.
		p.Log.Debugf("Doris %s attempt %d/%d on %s failed: %v", op, i+1, p.Attempts, fe, err)
	}
	return fmt.Errorf("%s failed after %d attempts: %w", op, p.Attempts, last)
}
