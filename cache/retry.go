package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// errUnconfirmed is a Set whose row did not read back with its value.
var errUnconfirmed = errors.New("the value written did not read back (not yet visible)")

// permanent tells the retry loop to stop: the operation failed for good
// (doris.IsPermanent, or Doris refused the statement itself), found nothing,
// or its caller's context ended.
func permanent(err error) bool {
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return doris.IsPermanent(err) || doris.IsRejectedStatement(err)
}

// clippedError is a rejected operation's error with its text clipped; it
// is marked doris.Permanent for callers such as the doris_binlog input,
// which stops instead of retrying a checkpoint write that cannot succeed.
type clippedError struct{ err error }

func (e *clippedError) Error() string { return clip(e.err.Error()) }
func (e *clippedError) Unwrap() error { return e.err }

func clipped(err error) error { return &clippedError{err: err} }

// retrier runs an operation again after connection errors, with the
// configured backoff, until it succeeds, fails for good, runs out of time or
// ctx ends.
type retrier struct {
	policy doris.BackoffPolicy
	// attempt bounds one try of an operation: the driver's socket timeouts
	// bound each read and write only, which a server trickling bytes keeps
	// alive, and a caller's ctx may have no deadline.
	attempt time.Duration
	log     *service.Logger
	name    string
	// failing is set while operations fail, so an outage logs one warning
	// when it starts and one info line when it ends, not one per attempt.
	failing atomic.Bool
}

func (r *retrier) do(ctx context.Context, op string, fn func(context.Context) error) error {
	began := time.Now()
	for attempt := 1; ; attempt++ {
		err := r.try(ctx, fn)
		if err == nil || permanent(err) {
			if err == nil && r.failing.CompareAndSwap(true, false) {
				r.infof("doris cache %s: reachable again", r.name)
			}
			return err
		}
		wait, ok := r.policy.WaitWithin(attempt, time.Since(began))
		if !ok {
			return fmt.Errorf("gave up after %d attempts in %s: %w", attempt, time.Since(began).Round(time.Millisecond), err)
		}
		if r.failing.CompareAndSwap(false, true) {
			r.warnf("doris cache %s: %s failed, retrying for up to %s: %v", r.name, op, r.policy.MaxElapsed, err)
		}
		if serr := doris.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (last error: %v)", serr, err)
		}
	}
}

// try runs fn once under the attempt deadline. An attempt cut off by its
// own deadline is a connection error, retried like one; the caller's
// deadline ends the operation.
func (r *retrier) try(ctx context.Context, fn func(context.Context) error) error {
	actx, cancel := context.WithTimeout(ctx, r.attempt)
	defer cancel()
	err := fn(actx)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		// Not wrapped: context.DeadlineExceeded would make it permanent.
		return fmt.Errorf("no answer within %s: %v", r.attempt, err)
	}
	return err
}

func (r *retrier) warnf(format string, args ...any) {
	if r.log != nil {
		r.log.Warnf(format, args...)
	}
}

func (r *retrier) infof(format string, args ...any) {
	if r.log != nil {
		r.log.Infof(format, args...)
	}
}

// clip shortens a long error text in the middle: Doris quotes the rejected
// value, a whole checkpoint, before it says what is wrong with it.
func clip(s string) string {
	const keep = 200
	if len(s) <= 2*keep+20 {
		return s
	}
	return strings.ToValidUTF8(s[:keep]+fmt.Sprintf(" ...(%d bytes)... ", len(s)-2*keep)+s[len(s)-keep:], "")
}
