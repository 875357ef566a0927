package input

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The clock stops while the query is held: holding it past the limit does
// not end it, and the time held is told apart from the time waited.
func TestQueryClockStopsWhileHeld(t *testing.T) {
	const limit = time.Second
	qctx, stop := startQueryClock(context.Background(), limit)
	defer stop()
	hold := limit + limit/2
	if err := holdQuery(qctx, func() error { time.Sleep(hold); return nil }); err != nil {
		t.Fatal(err)
	}
	if qctx.Err() != nil || queryTimeRanOut(qctx) {
		t.Fatalf("a query held for %s ran out of its %s: %v", hold, limit, context.Cause(qctx))
	}
	if waited, held := queryTimes(qctx); held < hold || waited >= limit {
		t.Fatalf("waited %s, held %s; want held >= %s and waited < %s", waited, held, hold, limit)
	}
}

// Time not held runs the clock out, across holds, and the query's context
// ends with DeadlineExceeded as its cause.
func TestQueryClockRunsOut(t *testing.T) {
	const limit = 50 * time.Millisecond
	qctx, stop := startQueryClock(context.Background(), limit)
	defer stop()
	if err := holdQuery(qctx, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-qctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the clock of %s did not run out in 10s", limit)
	}
	if !queryTimeRanOut(qctx) || !errors.Is(context.Cause(qctx), context.DeadlineExceeded) {
		t.Fatalf("ran out %v, cause %v; want true and DeadlineExceeded", queryTimeRanOut(qctx), context.Cause(qctx))
	}
	if waited, _ := queryTimes(qctx); waited < limit {
		t.Fatalf("ran out after waiting %s, less than %s", waited, limit)
	}
}

// Stopping the clock ends the query's context without counting it as run
// out, and a context without a clock holds nothing.
func TestQueryClockStop(t *testing.T) {
	qctx, stop := startQueryClock(context.Background(), time.Hour)
	stop()
	if qctx.Err() == nil || queryTimeRanOut(qctx) {
		t.Fatalf("after stop: err %v, ran out %v; want an ended context, not run out", qctx.Err(), queryTimeRanOut(qctx))
	}
	called := false
	if err := holdQuery(context.Background(), func() error { called = true; return nil }); err != nil || !called {
		t.Fatalf("holdQuery without a clock: called %v, err %v", called, err)
	}
	if queryTimeRanOut(context.Background()) {
		t.Fatal("a context without a clock ran out")
	}
}
