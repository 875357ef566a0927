package doris

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

var fastRetry = BackoffPolicy{Base: time.Microsecond, Max: time.Microsecond}

// Attempts go to the FEs in the configured order, from the FE that last
// answered; a call that fails everywhere makes exactly Attempts attempts.
func TestFERotationDoOrderAndAttempts(t *testing.T) {
	r := NewFERotation([]string{"a:1", "b:1", "c:1"})
	p := RetryPolicy{Attempts: 4, Backoff: fastRetry}
	var tried []string
	down := errors.New("connection refused")
	err := r.Do(context.Background(), p, "current TSO", func(_ context.Context, fe string) error {
		tried = append(tried, fe)
		return down
	})
	if got := strings.Join(tried, ","); got != "a:1,b:1,c:1,a:1" {
		t.Fatalf("tried %s", got)
	}
	if !errors.Is(err, down) || !strings.HasPrefix(err.Error(), "current TSO failed after 4 attempts: ") {
		t.Fatalf("exhausted: %v", err)
	}
	tried = nil
	if err := r.Do(context.Background(), p, "op", func(_ context.Context, fe string) error {
		tried = append(tried, fe)
		if fe == "c:1" {
			return nil
		}
		return down
	}); err != nil {
		t.Fatal(err)
	}
	tried = nil
	_ = r.Do(context.Background(), p, "op", func(_ context.Context, fe string) error {
		tried = append(tried, fe)
		return down
	})
	if got := strings.Join(tried, ","); got != "c:1,a:1,b:1,c:1" {
		t.Fatalf("after c answered, tried %s", got)
	}
}

// A permanent error stops the loop at once and leaves it without its
// mark: whether a later call may succeed is the caller's to judge.
func TestFERotationDoPermanentStops(t *testing.T) {
	r := NewFERotation([]string{"a:1", "b:1"})
	cause := &RequestError{FE: "a:1", Method: "GET", Endpoint: "/api/tso", Status: 403, Err: errors.New("HTTP status 403")}
	calls := 0
	err := r.Do(context.Background(), RetryPolicy{Attempts: 5, Backoff: fastRetry}, "op", func(context.Context, string) error {
		calls++
		return Permanent(cause)
	})
	if calls != 1 || err != error(cause) || IsPermanent(err) {
		t.Fatalf("calls %d, err %v (permanent %v)", calls, err, IsPermanent(err))
	}
}

func TestFERotationDoStopsWhenContextEnds(t *testing.T) {
	r := NewFERotation([]string{"a:1", "b:1"})
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := r.Do(ctx, RetryPolicy{Attempts: 5, Backoff: BackoffPolicy{Base: time.Hour, Max: time.Hour}}, "op", func(context.Context, string) error {
		calls++
		cancel()
		return errors.New("HTTP status 502")
	})
	if calls != 1 || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "HTTP status 502") {
		t.Fatalf("calls %d, err %v", calls, err)
	}
}
