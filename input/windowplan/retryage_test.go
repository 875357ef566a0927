package windowplan

import (
	"errors"
	"testing"
	"time"
)

// TestRetryAgeIsTheOldestOpenIncident: the age gauge follows the window
// that has been failing longest; a window's later failures do not reset
// its start, and its recovery hands the age to the next oldest.
func TestRetryAgeIsTheOldestOpenIncident(t *testing.T) {
	a, _ := testRetry(t)
	ages := a.ages
	clock := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	ages.now = func() time.Time { return clock }
	b := NewRetry(a.conf, a.log, ages, "db.u", a.w)
	age := func() int64 {
		ages.mu.Lock()
		defer ages.mu.Unlock()
		return ages.oldestSeconds()
	}
	refused := errors.New("connection refused")

	if got := age(); got != 0 {
		t.Fatalf("age %d with no incident, want 0", got)
	}
	_, _ = a.Classify(refused, a.w)
	clock = clock.Add(10 * time.Second)
	_, _ = b.Classify(refused, b.w)
	clock = clock.Add(20 * time.Second)
	_, _ = a.Classify(refused, a.w) // a's second failure: still failing since t0
	if got := age(); got != 30 {
		t.Fatalf("age %d, want 30 (a failing since 30s)", got)
	}
	a.Recovered()
	if got := age(); got != 20 {
		t.Fatalf("age %d after a recovered, want 20 (b failing since 20s)", got)
	}
	a.Recovered() // harmless again
	b.Recovered()
	if got := age(); got != 0 {
		t.Fatalf("age %d after both recovered, want 0", got)
	}
	if len(ages.since) != 0 {
		t.Fatalf("%d incidents still open", len(ages.since))
	}
}
