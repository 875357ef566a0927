package input

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

// Doris's query_timeout is the output's doing when the reader held the
// query at least as long as it waited on Doris; otherwise, and for every
// other error, the error is left as it is. Our own clock running out is
// request_query_timeout whatever the error says.
func TestTimedOutTellsWhoseTimeItWas(t *testing.T) {
	s := &windowSource{wr: &windowReader{conf: &Config{QueryTimeout: time.Hour}}}
	dorisTimeout := flightText("(10.0.0.1)[TIMEOUT]query is timeout")

	held, stopHeld := startQueryClock(context.Background(), time.Hour)
	defer stopHeld()
	if err := holdQuery(held, func() error { time.Sleep(200 * time.Millisecond); return nil }); err != nil {
		t.Fatal(err)
	}
	err := s.timedOut(held, dorisTimeout)
	if !isOutputHeld(err) || !strings.Contains(err.Error(), "held the query") || !strings.Contains(err.Error(), "[TIMEOUT]") {
		t.Fatalf("a held query's Doris timeout gave %v, want it put down to the output", err)
	}
	if other := errors.New("connection reset"); s.timedOut(held, other) != other {
		t.Fatal("an error that is no timeout was changed")
	}

	waited, stopWaited := startQueryClock(context.Background(), time.Hour)
	defer stopWaited()
	time.Sleep(20 * time.Millisecond)
	if err := s.timedOut(waited, dorisTimeout); isOutputHeld(err) || isQueryTimeout(err) {
		t.Fatalf("a Doris timeout of a query never held gave %v, want it as Doris sent it", err)
	}

	out, stopOut := startQueryClock(context.Background(), time.Millisecond)
	defer stopOut()
	<-out.Done()
	if err := s.timedOut(out, dorisTimeout); !isQueryTimeout(err) {
		t.Fatalf("our clock ran out: %v, want request_query_timeout", err)
	}
}
