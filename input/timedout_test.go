package input

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

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
	if !windowplan.IsOutputHeld(err) || !strings.Contains(err.Error(), "held the query") || !strings.Contains(err.Error(), "[TIMEOUT]") {
		t.Fatalf("a held query's Doris timeout gave %v, want it put down to the output", err)
	}
	if other := errors.New("connection reset"); s.timedOut(held, other) != other {
		t.Fatal("an error that is no timeout was changed")
	}

	waited, stopWaited := startQueryClock(context.Background(), time.Hour)
	defer stopWaited()
	time.Sleep(20 * time.Millisecond)
	if err := s.timedOut(waited, dorisTimeout); windowplan.IsOutputHeld(err) || windowplan.IsQueryTimeout(err) {
		t.Fatalf("a Doris timeout of a query never held gave %v, want it as Doris sent it", err)
	}

	out, stopOut := startQueryClock(context.Background(), time.Millisecond)
	defer stopOut()
	<-out.Done()
	if err := s.timedOut(out, dorisTimeout); !windowplan.IsQueryTimeout(err) {
		t.Fatalf("our clock ran out: %v, want request_query_timeout", err)
	}
}

// flightText is how a non-window Doris error reaches the input over Arrow
// Flight: INTERNAL, with the FE's errCode/detailMessage text.
func flightText(msg string) error {
	return status.Errorf(codes.Internal, "get flight info statement failed, errCode = 2, detailMessage = %s, error code: 1105, error msg: %s", msg, msg)
}
