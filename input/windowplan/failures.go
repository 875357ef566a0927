package windowplan

import (
	"errors"
	"fmt"
	"time"
)

// The failures of a read that the retry rule tells apart beyond what
// Doris's own answers say (package flight classifies those), and the
// error that stops the input.

// QueryTimeoutError is our own request_query_timeout running out while
// the rest of the run is fine. The clock counts only the time spent
// waiting on Doris (the input's query clock), so the part was too large to
// read in time.
type QueryTimeoutError struct {
	Timeout time.Duration
	Err     error
}

func (e *QueryTimeoutError) Error() string {
	return fmt.Sprintf("request_query_timeout %s ran out: %v", e.Timeout, e.Err)
}

func (e *QueryTimeoutError) Unwrap() error { return e.Err }

// IsQueryTimeout tells whether err is (or wraps) a *QueryTimeoutError.
func IsQueryTimeout(err error) bool {
	var qe *QueryTimeoutError
	return errors.As(err, &qe)
}

// OutputHeldError is Doris's query_timeout ending a query that the reader
// held, handing rows on to a slow output, at least as long as it waited on
// Doris: the output, not the size of the part, used up the time.
type OutputHeldError struct {
	Waited, Held time.Duration
	Err          error
}

func (e *OutputHeldError) Error() string {
	return fmt.Sprintf("Doris's query_timeout ended the query after the reader had waited %s on Doris and held the query %s handing rows on to the output: %v",
		e.Waited.Round(time.Millisecond), e.Held.Round(time.Millisecond), e.Err)
}

func (e *OutputHeldError) Unwrap() error { return e.Err }

// IsOutputHeld tells whether err is (or wraps) an *OutputHeldError.
func IsOutputHeld(err error) bool {
	var oe *OutputHeldError
	return errors.As(err, &oe)
}

// StopError is a permanent error (doris.IsPermanent) whose text already
// tells the operator what happened and what to do: the run stops on it as
// it is, where a bare permanent error is first given its window or split.
// The input's own stops are of this type too, so one test tells them all.
type StopError struct{ msg string }

func (e *StopError) Error() string   { return e.msg }
func (e *StopError) Permanent() bool { return true }

// Stopf is a *StopError with the formatted text.
func Stopf(format string, args ...any) error {
	return &StopError{msg: fmt.Sprintf(format, args...)}
}

// IsStop tells whether err is (or wraps) a *StopError.
func IsStop(err error) bool {
	var se *StopError
	return errors.As(err, &se)
}
