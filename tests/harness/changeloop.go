package harness

import (
	"context"
	"testing"
	"time"
)

// ChangeLoop runs change, pausing pause between calls, until the returned
// stop is called (or for at most limit), and stop returns how many changes
// were made. A failed change ends the loop and fails the test at stop;
// a loop that does not end within a minute of stop fails it too.
func ChangeLoop(t *testing.T, limit, pause time.Duration, change func(context.Context) error) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	var err error
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if e := change(ctx); e != nil {
				if ctx.Err() == nil {
					err = e
				}
				return
			}
			n++
			time.Sleep(pause)
		}
	}()
	return func() int {
		t.Helper()
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("the change loop did not end within a minute of being stopped")
		}
		if err != nil {
			t.Fatalf("changing the table: %v", err)
		}
		return n
	}
}
