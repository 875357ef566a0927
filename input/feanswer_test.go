package input

import (
	"errors"
	"testing"
)

// The FE is asked until it answers, then once only.
func TestFEAnswerAsksUntilAnswered(t *testing.T) {
	var a feAnswer
	calls := 0
	fail := func() (bool, error) { calls++; return false, errors.New("unavailable") }
	yes := func() (bool, error) { calls++; return true, nil }
	if _, err := a.get(fail); err == nil {
		t.Fatal("a failed probe gave no error")
	}
	for range 3 {
		if got, err := a.get(yes); !got || err != nil {
			t.Fatalf("get = %v, %v; want true", got, err)
		}
	}
	if calls != 2 {
		t.Fatalf("asked %d times, want 2 (the failure, then one answer kept)", calls)
	}
}
