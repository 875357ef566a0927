package input

import (
	"context"
	"sync"
	"time"
)

// queryClock is request_query_timeout counted as the time a query keeps
// the input waiting on Doris. The clock stops while the reader holds the
// query to hand its rows on (to the merge, and so to the output): a slow
// output never makes a query run out of time, so running out always means
// that Doris itself was slow to answer.
//
// It cancels the query's context when the time is up, rather than giving
// it a deadline, because a deadline cannot stop: gRPC would carry it to the
// server and end the stream at a fixed instant whatever the reader did.
type queryClock struct {
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	left    time.Duration // of the limit, when the clock last stopped
	started time.Time     // when it last started; zero while held
	held    int           // nested holds
	heldAt  time.Time     // when the outermost hold began
	timer   *time.Timer
	out     bool
	waited  time.Duration // time run, up to the last stop
	heldFor time.Duration // time held, up to the last start
}

type queryClockKey struct{}

// startQueryClock returns a context for one query (Execute and every DoGet
// of it) that is cancelled once the query has kept the reader waiting for
// limit in all. stop releases the clock and the context.
func startQueryClock(ctx context.Context, limit time.Duration) (qctx context.Context, stop func()) {
	qctx, cancel := context.WithCancelCause(ctx)
	c := &queryClock{cancel: cancel, left: limit}
	c.mu.Lock()
	c.start(time.Now())
	c.mu.Unlock()
	return context.WithValue(qctx, queryClockKey{}, c), func() {
		c.mu.Lock()
		if c.timer != nil {
			c.timer.Stop()
		}
		c.mu.Unlock()
		cancel(context.Canceled)
	}
}

func clockOf(qctx context.Context) *queryClock {
	c, _ := qctx.Value(queryClockKey{}).(*queryClock)
	return c
}

// start runs the clock from now; c.mu is held.
func (c *queryClock) start(now time.Time) {
	if c.out {
		return
	}
	c.started = now
	if c.left <= 0 {
		c.expireLocked()
		return
	}
	c.timer = time.AfterFunc(c.left, c.expire)
}

func (c *queryClock) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started.IsZero() || c.out {
		return // held (or stopped) after the timer had fired: start decides again
	}
	// The timer may fire a little early or late; the budget is spent either
	// way once it fires while the clock runs.
	c.expireLocked()
}

func (c *queryClock) expireLocked() {
	if !c.started.IsZero() {
		c.waited += time.Since(c.started)
		c.started = time.Time{}
	}
	c.out = true
	c.cancel(context.DeadlineExceeded)
}

// hold stops the clock until the matching release.
func (c *queryClock) hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held++
	if c.held > 1 || c.out {
		return
	}
	now := time.Now()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	ran := now.Sub(c.started)
	c.waited += ran
	c.left -= ran
	c.started, c.heldAt = time.Time{}, now
}

func (c *queryClock) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held--
	if c.held > 0 || c.out {
		return
	}
	now := time.Now()
	c.heldFor += now.Sub(c.heldAt)
	c.start(now)
}

// holdQuery runs f with qctx's query clock stopped: f is the reader's own
// time (converting rows, waiting for the merge to take them), not Doris's.
// Without a clock in qctx it just runs f.
func holdQuery(qctx context.Context, f func() error) error {
	c := clockOf(qctx)
	if c == nil {
		return f()
	}
	c.hold()
	defer c.release()
	return f()
}

// queryTimeRanOut tells whether qctx's query clock ran out.
func queryTimeRanOut(qctx context.Context) bool {
	c := clockOf(qctx)
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out
}

// queryTimes is how long the query has kept the reader waiting on Doris,
// and how long the reader has held it, so far.
func queryTimes(qctx context.Context) (waited, held time.Duration) {
	c := clockOf(qctx)
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	waited, held = c.waited, c.heldFor
	if !c.started.IsZero() {
		waited += now.Sub(c.started)
	} else if c.held > 0 {
		held += now.Sub(c.heldAt)
	}
	return waited, held
}
