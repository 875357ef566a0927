package windowplan

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/internal/testlog"
)

// TestClassifyWindowWaitBounds: Doris's retryAfterMs is followed within
// 1..5 s.
func TestClassifyWindowWaitBounds(t *testing.T) {
	for after, want := range map[time.Duration]time.Duration{
		0: time.Second, 200 * time.Millisecond: time.Second, 1500 * time.Millisecond: 1500 * time.Millisecond, time.Minute: 5 * time.Second,
	} {
		rt, _ := testRetry(t)
		we := &flight.WindowError{Code: flight.CodeWindowNotReady, Name: flight.NameWindowNotReady, RetryAfter: after}
		step, err := rt.Classify(fmt.Errorf("window: %w", we), rt.w)
		if err != nil || step.Split || step.Wait != want {
			t.Errorf("retryAfter %s: step %+v, err %v; want a wait of %s", after, step, err, want)
		}
	}
}

// TestClassifyVisibleWaitBudget: 5101 waits the same window within
// binlog_visible_wait_timeout; after it, or when it is 0, the window is
// still retried, with backoff, and the switch is logged once.
func TestClassifyVisibleWaitBudget(t *testing.T) {
	const spent = "after binlog_visible_wait_timeout"
	for _, tc := range []struct {
		visible error
		budget  time.Duration
	}{
		{status.Error(codes.Unavailable, "ERR_INCR_VISIBLE_WAIT_TIMEOUT: reason=VISIBLE_WAIT_TIMEOUT"), 5 * time.Minute},
		{status.Error(codes.Unavailable, "ERR_INCR_VISIBLE_WAIT_TIMEOUT: reason=VISIBLE_WAIT_TIMEOUT"), 0},
		{flightText(classicTxnWait), 5 * time.Minute},
	} {
		visible, budget := tc.visible, tc.budget
		rt, _ := testRetry(t)
		log, sink := testlog.New()
		rt.log = log
		rt.conf.VisibleWaitTimeout = budget
		if budget > 0 {
			step, err := rt.Classify(visible, rt.w)
			if err != nil || step.Split || step.Wait != time.Second {
				t.Fatalf("within the budget: step %+v, err %v; want a 1s wait", step, err)
			}
			if n := len(sink.Lines("WARN", spent)); n != 0 {
				t.Fatalf("budget reported spent after the first wait (%d lines)", n)
			}
			rt.waitStarted = time.Now().Add(-budget - time.Second)
		}
		for i := 0; i < 3; i++ {
			step, err := rt.Classify(visible, rt.w)
			if err != nil || step.Split || step.Wait <= 0 || step.Wait > 30*time.Second {
				t.Fatalf("budget %s spent, attempt %d: step %+v, err %v; want a backoff wait", budget, i, step, err)
			}
		}
		if n := len(sink.Lines("WARN", spent)); n != 1 {
			t.Errorf("budget %s: the switch to backoff was logged %d times, want once", budget, n)
		}
	}
}

// TestClassifyBackoffGrowsBounded: reconnect waits start near one second
// and grow to at most 30 s.
func TestClassifyBackoffGrowsBounded(t *testing.T) {
	rt, _ := testRetry(t)
	refused := errors.New("rpc error: code = Unavailable desc = connection refused")
	for i := 1; i <= 10; i++ {
		step, err := rt.Classify(refused, rt.w)
		if err != nil || step.Split {
			t.Fatalf("attempt %d: step %+v, err %v", i, step, err)
		}
		switch {
		case step.Wait > 30*time.Second:
			t.Fatalf("attempt %d waits %s, more than 30s", i, step.Wait)
		case i == 1 && step.Wait > time.Second:
			t.Fatalf("first wait %s, want at most 1s", step.Wait)
		case i >= 6 && step.Wait < 15*time.Second:
			t.Fatalf("attempt %d waits %s, want the grown wait of 15..30s", i, step.Wait)
		}
	}
}

// TestClassifyLogsOncePerMinute: an incident is logged at its first
// failure and then at most once a minute, and its end once.
func TestClassifyLogsOncePerMinute(t *testing.T) {
	rt, _ := testRetry(t)
	log, sink := testlog.New()
	rt.log = log
	refused := errors.New("connection refused")
	for i := 0; i < 5; i++ {
		if _, err := rt.Classify(refused, rt.w); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(sink.Lines("WARN", "reconnecting in")); n != 1 {
		t.Fatalf("5 failures within a minute logged %d warnings, want 1", n)
	}
	rt.lastLog = time.Now().Add(-time.Minute)
	if _, err := rt.Classify(refused, rt.w); err != nil {
		t.Fatal(err)
	}
	if n := len(sink.Lines("WARN", "(6 attempts so far)")); n != 1 {
		t.Fatalf("a failure a minute later was not logged with its count")
	}
	rt.Recovered()
	if n := len(sink.Lines("INFO", "read after 6 failed attempt(s)")); n != 1 {
		t.Fatalf("recovery logged %d times, want once", n)
	}
}

// Doris's query_timeout used up while a slow output held the query is the
// output's doing: however often it repeats, the same window is read again,
// never halved (halves would be held as long) and never fatal.
func TestOutputHeldTimeoutNeverSplitsOrStops(t *testing.T) {
	rt, _ := testRetry(t)
	held := &OutputHeldError{Waited: time.Second, Held: time.Minute, Err: flightText("(10.0.0.1)[TIMEOUT]query is timeout")}
	for i := range 4 * rt.conf.Retries {
		step, err := rt.Classify(held, rt.w)
		if err != nil || step.Split {
			t.Fatalf("attempt %d: split %v, error %v; want the same window again", i+1, step.Split, err)
		}
		if step.Wait <= 0 {
			t.Fatalf("attempt %d: no wait before reading again", i+1)
		}
	}
}
