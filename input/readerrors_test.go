package input

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A permanent failure stays recognisable through the context that callers
// wrap around it; nil stays nil, so `return permanent(err)` is safe.
func TestPermanentSurvivesWrapping(t *testing.T) {
	if permanent(nil) != nil {
		t.Fatalf("permanent(nil) is not nil")
	}
	cause := errors.New("unsupported Arrow type")
	err := fmt.Errorf("binlog window of db.t: %w", permanent(cause))
	if !isPermanent(err) || !errors.Is(err, cause) {
		t.Fatalf("wrapped permanent error %v: isPermanent %v, Is(cause) %v; want both", err, isPermanent(err), errors.Is(err, cause))
	}
	if isPermanent(cause) || isPermanent(fmt.Errorf("x: %w", cause)) {
		t.Fatalf("a plain error counts as permanent")
	}
}

// Our own query timeout names the setting to raise, keeps its cause, and is
// told apart from other deadlines.
func TestQueryTimeoutErrorNamesTheSetting(t *testing.T) {
	qe := &queryTimeoutError{timeout: 90 * time.Second, err: context.DeadlineExceeded}
	if got := qe.Error(); !strings.Contains(got, "request_query_timeout 1m30s ran out") || !strings.Contains(got, "deadline exceeded") {
		t.Fatalf("error text %q, want the setting, its value and the cause", got)
	}
	wrapped := fmt.Errorf("binlog window of db.t: %w", qe)
	if !isQueryTimeout(wrapped) || !errors.Is(wrapped, context.DeadlineExceeded) {
		t.Fatalf("wrapped %v: isQueryTimeout %v, Is(DeadlineExceeded) %v; want both", wrapped, isQueryTimeout(wrapped), errors.Is(wrapped, context.DeadlineExceeded))
	}
	if isQueryTimeout(context.DeadlineExceeded) {
		t.Fatalf("a bare deadline counts as request_query_timeout")
	}
}
