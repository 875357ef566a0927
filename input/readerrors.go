package input

import (
	"errors"
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// permanentError marks a read failure that reading the same rows again
// cannot fix: Doris sent data the input cannot convert (an operation code
// outside 0..3, an Arrow type it does not know, a result whose columns
// match neither the known schema nor the current DDL). Retrying it would
// stall the table until its binlog expires and Doris silently starts
// after the gap, so such a window stops the input instead.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// permanent marks err as permanent; nil stays nil.
func permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// isPermanent also knows package changes' conversion failures, which it
// marks as checkpoint.PermanentError.
func isPermanent(err error) bool {
	var pe *permanentError
	var cpe *checkpoint.PermanentError
	return errors.As(err, &pe) || errors.As(err, &cpe)
}

// queryTimeoutError is our own request_query_timeout running out while
// the rest of the run is fine: like Doris's own query_timeout, the window
// was too large to read in time.
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
