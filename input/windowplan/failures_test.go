package windowplan

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Our own query timeout names the setting to raise, keeps its cause, and is
// told apart from other deadlines.
func TestQueryTimeoutErrorNamesTheSetting(t *testing.T) {
	qe := &QueryTimeoutError{Timeout: 90 * time.Second, Err: context.DeadlineExceeded}
	if got := qe.Error(); !strings.Contains(got, "request_query_timeout 1m30s ran out") || !strings.Contains(got, "deadline exceeded") {
		t.Fatalf("error text %q, want the setting, its value and the cause", got)
	}
	wrapped := fmt.Errorf("binlog window of db.t: %w", qe)
	if !IsQueryTimeout(wrapped) || !errors.Is(wrapped, context.DeadlineExceeded) {
		t.Fatalf("wrapped %v: isQueryTimeout %v, Is(DeadlineExceeded) %v; want both", wrapped, IsQueryTimeout(wrapped), errors.Is(wrapped, context.DeadlineExceeded))
	}
	if IsQueryTimeout(context.DeadlineExceeded) {
		t.Fatalf("a bare deadline counts as request_query_timeout")
	}
}
