package input

import (
	"cmp"
	"context"
	"errors"
	"sync"
)

// startupRequestsAtOnce bounds the per-table FE requests of a start-up
// (SHOW CREATE TABLE, _query_plan, the partition list): done one table at
// a time they kept a 100-table input from reading its first row for about
// a second, while a handful at once is still a light load on the FE.
const startupRequestsAtOnce = 8

// forEachTable runs fn(i) for every i below n, at most
// startupRequestsAtOnce at a time, and returns the error of the lowest i
// that failed: the one a loop in table order would have stopped at. After
// a failure no further i is started, and the calls still running see
// their context cancelled; what they return for that is not the cause.
func forEachTable(parent context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, startupRequestsAtOnce) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = fn(ctx, i); errs[i] != nil {
					cancel()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	var first error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) && parent.Err() == nil:
			first = cmp.Or(first, err) // cancelled by a failure here: a later i has the cause
		default:
			return err
		}
	}
	return cmp.Or(first, parent.Err())
}
