package windowplan

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testlog"
)

func TestClassifyQueryLimitSplitsDownToOneSecond(t *testing.T) {
	rt, _ := testRetry(t)
	limit := errors.New("errCode = 2, detailMessage = (be1)[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed")
	piece := rt.w
	for piece.End != 0 {
		step, err := rt.Classify(limit, piece)
		if err != nil {
			if !IsStop(err) || !strings.Contains(err.Error(), "exec_mem_limit") {
				t.Fatalf("at %v: %v, want a fatal error naming exec_mem_limit", piece, err)
			}
			if ms := mustMs(t, piece.End) - mustMs(t, piece.Start); ms != 1000 {
				t.Fatalf("gave up on a %d ms piece, want one second", ms)
			}
			return
		}
		if !step.Split {
			t.Fatalf("at %v: step %+v, want a split", piece, step)
		}
		halves, _ := Split(piece)
		piece = halves[0]
	}
}

func TestClassifyOwnQueryTimeoutSplits(t *testing.T) {
	rt, _ := testRetry(t)
	err := &QueryTimeoutError{Timeout: time.Second, Err: errors.New("context deadline exceeded")}
	step, cerr := rt.Classify(fmt.Errorf("binlog window: %w", err), rt.w)
	if cerr != nil || !step.Split {
		t.Fatalf("step %+v, err %v; want a split", step, cerr)
	}
}

// TestClassifyOneSecondTooLarge: a piece of one second that still runs
// out stops the input, naming both fields to raise.
func TestClassifyOneSecondTooLarge(t *testing.T) {
	rt, _ := testRetry(t)
	rt.conf.QueryTimeout, rt.conf.ExecMemLimit = 6*time.Hour, 8192<<20
	limit := flightText("(be1)[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed")
	if step, err := rt.Classify(limit, secWindow(4, 6)); err != nil || !step.Split {
		t.Fatalf("two seconds: step %+v, err %v; want a split", step, err)
	}
	piece := secWindow(4, 5)
	_, err := rt.Classify(limit, piece)
	if !IsStop(err) {
		t.Fatalf("one second: %v, want a fatal error", err)
	}
	for _, want := range []string{"db.t", piece.Start.String(), piece.End.String(), "request_query_timeout 6h0m0s", "exec_mem_limit 8589934592 bytes", "MEM_LIMIT_EXCEEDED", "Raise request_query_timeout or exec_mem_limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fatal error %q does not name %q", err, want)
		}
	}
}

// TestClassifyPressureRetriesThenHalves: memory pressure reads the same
// part again with backoff until request_retries attempts failed, then its
// halves, each with an attempt count of its own; a one-second part that
// keeps failing stops the input, naming the cause and the budget.
func TestClassifyPressureRetriesThenHalves(t *testing.T) {
	rt, _ := testRetry(t)
	log, sink := testlog.New()
	rt.log = log
	pressure := flightText(processMemory)
	part := secWindow(0, 4)
	for _, want := range []string{wait, wait, split} {
		step, err := rt.Classify(pressure, part)
		if err != nil || step.Wait <= 0 || step.Split != (want == split) {
			t.Fatalf("step %+v, err %v; want a %s after a backoff", step, err, want)
		}
	}
	if n := len(sink.Lines("WARN", "memory pressure on the Doris BE (attempt")); n != 2 {
		t.Errorf("%d same-window retries logged with their cause, want 2", n)
	}
	if n := len(sink.Lines("WARN", "3 times in a row (request_retries 3); reading it as two halves")); n != 1 {
		t.Errorf("the halving was logged %d times, want once", n)
	}
	halves, _ := Split(part)
	if step, err := rt.Classify(pressure, halves[0]); err != nil || step.Split {
		t.Fatalf("first failure of a half: step %+v, err %v; want the half read again", step, err)
	}
	second := secWindow(0, 1)
	for i := 1; i < rt.conf.Retries; i++ {
		if step, err := rt.Classify(pressure, second); err != nil || step.Split {
			t.Fatalf("one second, failure %d: step %+v, err %v; want it read again", i, step, err)
		}
	}
	_, err := rt.Classify(pressure, second)
	if !IsStop(err) {
		t.Fatalf("one second refused %d times: %v, want a fatal error", rt.conf.Retries, err)
	}
	for _, want := range []string{"db.t", second.Start.String(), "memory pressure", "3 times in a row (request_retries 3)", "Process memory not enough", "be.INFO"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fatal error %q does not name %q", err, want)
		}
	}
}

// TestClassifyOwnMemLimitSplitsAtOnce: a query over its own exec_mem_limit
// needs as much again, so it is halved at its first failure.
func TestClassifyOwnMemLimitSplitsAtOnce(t *testing.T) {
	rt, _ := testRetry(t)
	step, err := rt.Classify(flightText(ownMemLimit), secWindow(0, 4))
	if err != nil || !step.Split || step.Wait != 0 {
		t.Fatalf("step %+v, err %v; want an immediate split", step, err)
	}
}
