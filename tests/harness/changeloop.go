package harness

import (
	"context"
	"sync"
	"testing"
	"time"
)

// ChangeLoop runs change, pausing pause between calls, until the returned
// stop is called (or for at most limit), and stop returns how many changes
// were made. A failed change ends the loop and fails the test at stop.
func ChangeLoop(t *testing.T, limit, pause time.Duration, change func(context.Context) error) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	var wg sync.WaitGroup
	var err error
	n := 0
	wg.Go(func() {
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
	})
	return func() int {
		t.Helper()
		cancel()
		wg.Wait()
		if err != nil {
			t.Fatalf("changing the table: %v", err)
		}
		return n
	}
}
