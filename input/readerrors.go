package input

import (
	"errors"
	"fmt"
	"time"
)

// queryTimeoutError is our own request_query_timeout running out while
// the rest of the run is fine. The clock counts only the time spent
// waiting on Doris (queryClock), so the part was too large to read in time.
type queryTimeoutError struct {
	timeout time.Duration
	err     error
}

func (e *queryTimeoutError) Error() string {
	return fmt.Sprintf("request_query_timeout %s ran out: %v", e.timeout, e.err)
}

func (e *queryTimeoutError) Unwrap() error { return e.err }

func isQueryTimeout(err error) bool {
	var qe *queryTimeoutError
	return errors.As(err, &qe)
}

// outputHeldError is Doris's query_timeout ending a query that the reader
// held, handing rows on to a slow output, at least as long as it waited on
// Doris: the output, not the size of the part, used up the time.
type outputHeldError struct {
	waited, held time.Duration
	err          error
}

func (e *outputHeldError) Error() string {
	return fmt.Sprintf("Doris's query_timeout ended the query after the reader had waited %s on Doris and held the query %s handing rows on to the output: %v",
		e.waited.Round(time.Millisecond), e.held.Round(time.Millisecond), e.err)
}

func (e *outputHeldError) Unwrap() error { return e.err }

func isOutputHeld(err error) bool {
	var oe *outputHeldError
	return errors.As(err, &oe)
}
