package input

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/changes"
	"github.com/rpconnect-doris/rpconnect-doris/input/changes/changestest"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

func testRetry(t *testing.T) (*windowRetry, *retryAges) {
	t.Helper()
	res := service.MockResources()
	ages := newRetryAges(res.Metrics())
	conf := &Config{QueryTimeout: time.Minute, ExecMemLimit: 1 << 20, Retries: 3, CheckpointKey: "k", CheckpointCache: "c"}
	w := window{start: mustBound(t, "2026-01-01 00:00:00"), end: mustBound(t, "2026-01-01 00:00:10")}
	return newWindowRetry(conf, res.Logger(), ages, "db.t", w), ages
}

func TestClassifyPermanentStops(t *testing.T) {
	rt, _ := testRetry(t)
	cause := doris.Permanent(errors.New("binlog row 3 of db.t: Unsupported Doris binlog operation: 7"))
	_, err := rt.classify(fmt.Errorf("binlog window [a, b) of db.t: %w", cause), rt.w)
	if !isFatal(err) {
		t.Fatalf("a permanent error gave %v, want a fatal error", err)
	}
	for _, want := range []string{"db.t", rt.w.start.String(), rt.w.end.String(), "operation: 7", "cannot fix"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fatal error %q does not name %q", err, want)
		}
	}
}

// A row that package changes cannot convert stops the input as input's own
// permanent failures do: reading the window again reads the same row.
func TestClassifyConversionFailureStops(t *testing.T) {
	rec := changestest.IncrRecord(memory.DefaultAllocator, changestest.IncrRow{TSO: doris.Compose(1_760_000_000_000, 0), Op: 7, ID: 1})
	defer rec.Release()
	convs := changes.NewConverters(func() *changes.Converter {
		return changes.NewConverter(changes.Table{DB: "db", Name: "t", Key: "db.t"}, rowjson.Options{Binlog: true}, nil)
	})
	_, convErr := convs.Batch(rec, nil)
	if convErr == nil {
		t.Fatal("operation 7 converted")
	}
	rt, _ := testRetry(t)
	_, err := rt.classify(fmt.Errorf("binlog window [a, b) of db.t: %w", convErr), rt.w)
	if !isFatal(err) || !strings.Contains(err.Error(), "operation: 7") {
		t.Fatalf("a row changes cannot convert gave %v, want a fatal error naming the operation", err)
	}
}

func TestClassifyTransientWaits(t *testing.T) {
	rt, ages := testRetry(t)
	for i := 1; i <= 3; i++ {
		step, err := rt.classify(errors.New("rpc error: code = Unavailable desc = connection refused"), rt.w)
		if err != nil || step.split || step.wait <= 0 {
			t.Fatalf("attempt %d: step %+v, err %v; want a wait", i, step, err)
		}
	}
	if len(ages.since) != 1 {
		t.Fatalf("%d incidents tracked, want 1", len(ages.since))
	}
	rt.recovered()
	if len(ages.since) != 0 {
		t.Fatalf("incident still tracked after recovery")
	}
}

func TestClassifyQueryLimitSplitsDownToOneSecond(t *testing.T) {
	rt, _ := testRetry(t)
	limit := errors.New("errCode = 2, detailMessage = (be1)[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed")
	piece := rt.w
	for piece.end != 0 {
		step, err := rt.classify(limit, piece)
		if err != nil {
			if !isFatal(err) || !strings.Contains(err.Error(), "exec_mem_limit") {
				t.Fatalf("at %v: %v, want a fatal error naming exec_mem_limit", piece, err)
			}
			if ms := mustMs(t, piece.end) - mustMs(t, piece.start); ms != 1000 {
				t.Fatalf("gave up on a %d ms piece, want one second", ms)
			}
			return
		}
		if !step.split {
			t.Fatalf("at %v: step %+v, want a split", piece, step)
		}
		halves, _ := splitWindow(piece)
		piece = halves[0]
	}
}

func TestClassifyOwnQueryTimeoutSplits(t *testing.T) {
	rt, _ := testRetry(t)
	err := &queryTimeoutError{timeout: time.Second, err: errors.New("context deadline exceeded")}
	step, cerr := rt.classify(fmt.Errorf("binlog window: %w", err), rt.w)
	if cerr != nil || !step.split {
		t.Fatalf("step %+v, err %v; want a split", step, cerr)
	}
}

func TestSplitWindowKeepsOrderAndCoverage(t *testing.T) {
	for _, tc := range []struct {
		start, end string
		ok         bool
	}{
		{"2026-01-01 00:00:00", "2026-01-01 00:00:10", true},
		{"2026-01-01 00:00:00", "2026-01-01 00:00:03", true},
		{"2026-01-01 00:00:00", "2026-01-01 00:00:02", true},
		{"2026-01-01 00:00:00", "2026-01-01 00:00:01", false},
		{"2026-01-01 23:59:59", "2026-01-02 06:00:00", true},
	} {
		halves, ok := splitWindow(window{start: mustBound(t, tc.start), end: mustBound(t, tc.end)})
		if ok != tc.ok {
			t.Fatalf("splitWindow(%s, %s) ok = %v, want %v", tc.start, tc.end, ok, tc.ok)
		}
		if !ok {
			continue
		}
		a, b := halves[0], halves[1]
		if a.start.String() != tc.start || b.end.String() != tc.end || a.end != b.start {
			t.Fatalf("halves %v of [%s, %s) do not chain", halves, tc.start, tc.end)
		}
		if mustMs(t, a.end) <= mustMs(t, a.start) || mustMs(t, b.end) <= mustMs(t, b.start) || mustMs(t, a.end)%1000 != 0 {
			t.Fatalf("halves %v are not whole non-empty seconds", halves)
		}
	}
}

func mustMs(t *testing.T, b bound) int64 {
	t.Helper()
	return b.ms()
}

// secWindow is [from, to) in seconds after 2026-01-01 00:00:00 UTC.
func secWindow(from, to int64) window {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	return window{start: boundAt(base + from*1000), end: boundAt(base + to*1000)}
}

// flightText is how a non-window Doris error reaches the input over Arrow
// Flight: INTERNAL, with the FE's errCode/detailMessage text.
func flightText(msg string) error {
	return status.Errorf(codes.Internal, "get flight info statement failed, errCode = 2, detailMessage = %s, error code: 1105, error msg: %s", msg, msg)
}

// ownMemLimit is a query over its own exec_mem_limit, as a Doris 2.1 BE
// words it.
const ownMemLimit = "(10.16.10.8)[MEM_LIMIT_EXCEEDED]PreCatch error code:11, [E11] Allocator mem tracker check failed, " +
	"[MEM_LIMIT_EXCEEDED]failed alloc size 1.03 MB, memory tracker limit exceeded, tracker label:Query#Id=f78208b15e064527-a84c5c0b04c04fcf, " +
	"type:query, limit 100.00 MB, peak used 99.29 MB, current used 99.25 MB. backend 10.16.10.8, process memory used 2.65 GB."

// processMemory is the BE's memory GC cancelling the largest query: it
// says "exceed limit" and MEM_LIMIT_EXCEEDED too.
const processMemory = "(10.16.10.8)[MEM_LIMIT_EXCEEDED]Process memory not enough, cancel top memory used query: " +
	"<Query#Id=e862471398b14e71-9361a1ab8153cb29> consumption 866.97 MB, backend 10.16.10.8, process memory used 3.12 GB exceed limit 3.01 GB " +
	"or sys available memory 191.25 GB less than low water mark 3.20 GB. Execute again after enough memory, details see be.INFO."

// The steps TestClassifyDecidesByError tells apart.
const stop, split, wait = "stop", "split", "wait"

const classicTxnWait = "timeout waiting previous transactions finish for time-based read, txnIdWatermark=10 dbId=1 tableIds=[2]"

// TestClassifyDecidesByError holds each kind of failure to its step: stop
// the input, read the part as two halves, or wait and read it again.
func TestClassifyDecidesByError(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"binlog expired", flightText("Row binlog offset has expired according to binlog.ttl_seconds"), stop},
		{"permanent", fmt.Errorf("window: %w", doris.Permanent(errors.New("Unsupported Doris binlog operation: 7"))), stop},
		{"permanent beats a limit text", doris.Permanent(errors.New("Arrow type of column Timeout: unknown, exceed limit")), stop},
		{"the query's own exec_mem_limit", flightText(ownMemLimit), split},
		{"Allocator mem tracker check", flightText("(127.0.0.1)[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed"), split},
		// Memory pressure, and memory refusals that do not say whose
		// limit, are first read again whole.
		{"process memory not enough", flightText(processMemory), wait},
		{"Memory limit exceeded", flightText("Memory limit exceeded:<consuming_tracker=RuntimeState:instance:1>"), wait},
		{"Memory exceed limit (1.1)", flightText("Memory exceed limit. New partitioned Aggregation in spill"), wait},
		{"query_timeout Timeout", errors.New("ERROR 1105 (HY000): errCode = 2, detailMessage = Timeout"), split},
		{"[TIMEOUT] status", flightText("(10.0.0.1)[TIMEOUT]query is timeout"), split},
		{"query_timeout used up by the output", &outputHeldError{waited: time.Second, held: time.Minute, err: flightText("(10.0.0.1)[TIMEOUT]query is timeout")}, wait},
		{"own request_query_timeout", fmt.Errorf("binlog window: %w", &queryTimeoutError{timeout: time.Minute, err: context.DeadlineExceeded}), split},
		{"5100 not ready", status.Error(codes.Unavailable, "ERR_INCR_WINDOW_NOT_READY: reason=END_AFTER_CURRENT_TSO, retryAfterMs=1500"), wait},
		{"5101 visible wait", status.Error(codes.Unavailable, "ERR_INCR_VISIBLE_WAIT_TIMEOUT: reason=VISIBLE_WAIT_TIMEOUT"), wait},
		// A classic FE's visible-wait text carries "detailMessage = timeout";
		// it is Doris's "retry this window", not a window too large.
		{"classic visible wait", flightText(classicTxnWait), wait},
		{"connection refused", errors.New("rpc error: code = Unavailable desc = connection refused"), wait},
		{"a deadline that is not request_query_timeout", fmt.Errorf("do get: %w", context.DeadlineExceeded), wait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, _ := testRetry(t)
			step, err := rt.classify(tc.err, rt.w)
			got := wait
			switch {
			case err != nil:
				if !isFatal(err) {
					t.Fatalf("error %v is not fatal", err)
				}
				got = stop
			case step.split:
				got = split
			case step.wait <= 0:
				t.Fatalf("step %+v neither waits nor splits", step)
			}
			if got != tc.want {
				t.Fatalf("%v: %s (step %+v, err %v), want %s", tc.err, got, step, err, tc.want)
			}
		})
	}
}

func TestClassifyExpiredSaysHowToRecover(t *testing.T) {
	rt, _ := testRetry(t)
	_, err := rt.classify(flightText("Row binlog offset has expired according to binlog.ttl_seconds"), rt.w)
	if !isFatal(err) {
		t.Fatalf("expiry gave %v, want a fatal error", err)
	}
	for _, want := range []string{"db.t", rt.w.start.String(), rt.w.end.String(), "checkpoint key k (and k.bak)", "cache c", "scan_mode: initial", "binlog.ttl_seconds"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fatal error %q does not name %q", err, want)
		}
	}
}

// TestClassifyWindowWaitBounds: Doris's retryAfterMs is followed within
// 1..5 s.
func TestClassifyWindowWaitBounds(t *testing.T) {
	for after, want := range map[time.Duration]time.Duration{
		0: time.Second, 200 * time.Millisecond: time.Second, 1500 * time.Millisecond: 1500 * time.Millisecond, time.Minute: 5 * time.Second,
	} {
		rt, _ := testRetry(t)
		we := &flight.WindowError{Code: flight.CodeWindowNotReady, Name: flight.NameWindowNotReady, RetryAfter: after}
		step, err := rt.classify(fmt.Errorf("window: %w", we), rt.w)
		if err != nil || step.split || step.wait != want {
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
		log, sink := captureLogger(t)
		rt.log = log
		rt.conf.VisibleWaitTimeout = budget
		if budget > 0 {
			step, err := rt.classify(visible, rt.w)
			if err != nil || step.split || step.wait != time.Second {
				t.Fatalf("within the budget: step %+v, err %v; want a 1s wait", step, err)
			}
			if n := len(sink.Lines("WARN", spent)); n != 0 {
				t.Fatalf("budget reported spent after the first wait (%d lines)", n)
			}
			rt.waitStarted = time.Now().Add(-budget - time.Second)
		}
		for i := 0; i < 3; i++ {
			step, err := rt.classify(visible, rt.w)
			if err != nil || step.split || step.wait <= 0 || step.wait > 30*time.Second {
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
		step, err := rt.classify(refused, rt.w)
		if err != nil || step.split {
			t.Fatalf("attempt %d: step %+v, err %v", i, step, err)
		}
		switch {
		case step.wait > 30*time.Second:
			t.Fatalf("attempt %d waits %s, more than 30s", i, step.wait)
		case i == 1 && step.wait > time.Second:
			t.Fatalf("first wait %s, want at most 1s", step.wait)
		case i >= 6 && step.wait < 15*time.Second:
			t.Fatalf("attempt %d waits %s, want the grown wait of 15..30s", i, step.wait)
		}
	}
}

// TestClassifyLogsOncePerMinute: an incident is logged at its first
// failure and then at most once a minute, and its end once.
func TestClassifyLogsOncePerMinute(t *testing.T) {
	rt, _ := testRetry(t)
	log, sink := captureLogger(t)
	rt.log = log
	refused := errors.New("connection refused")
	for i := 0; i < 5; i++ {
		if _, err := rt.classify(refused, rt.w); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(sink.Lines("WARN", "reconnecting in")); n != 1 {
		t.Fatalf("5 failures within a minute logged %d warnings, want 1", n)
	}
	rt.lastLog = time.Now().Add(-time.Minute)
	if _, err := rt.classify(refused, rt.w); err != nil {
		t.Fatal(err)
	}
	if n := len(sink.Lines("WARN", "(6 attempts so far)")); n != 1 {
		t.Fatalf("a failure a minute later was not logged with its count")
	}
	rt.recovered()
	if n := len(sink.Lines("INFO", "read after 6 failed attempt(s)")); n != 1 {
		t.Fatalf("recovery logged %d times, want once", n)
	}
}

// TestSplitWindowDownToSeconds splits windows until no piece can be split:
// every piece ends at one second, and the pieces chain from start to end.
func TestSplitWindowDownToSeconds(t *testing.T) {
	for _, n := range []int64{2, 3, 5, 7, 10, 61, 3601, 3 * 86400} {
		w := secWindow(0, n)
		pieces := []window{w}
		var leaves []window
		for len(pieces) > 0 {
			p := pieces[0]
			pieces = pieces[1:]
			halves, ok := splitWindow(p)
			if !ok {
				leaves = append(leaves, p)
				continue
			}
			if d0, d1 := mustMs(t, halves[0].end)-mustMs(t, halves[0].start), mustMs(t, halves[1].end)-mustMs(t, halves[1].start); d0 > d1 || d1-d0 > 1000 {
				t.Fatalf("%v split into %d ms and %d ms, want halves at a whole second", p, d0, d1)
			}
			pieces = append([]window{halves[0], halves[1]}, pieces...)
		}
		if int64(len(leaves)) != n {
			t.Fatalf("%d s window ended in %d pieces, want %d one-second pieces", n, len(leaves), n)
		}
		at := w.start
		for _, l := range leaves {
			if l.start != at || mustMs(t, l.end)-mustMs(t, l.start) != 1000 {
				t.Fatalf("piece %v after %s: not the next second", l, at)
			}
			at = l.end
		}
		if at != w.end {
			t.Fatalf("pieces end at %s, want %s", at, w.end)
		}
	}
}

// TestClassifyOneSecondTooLarge: a piece of one second that still runs
// out stops the input, naming both fields to raise.
func TestClassifyOneSecondTooLarge(t *testing.T) {
	rt, _ := testRetry(t)
	rt.conf.QueryTimeout, rt.conf.ExecMemLimit = 6*time.Hour, 8192<<20
	limit := flightText("(be1)[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed")
	if step, err := rt.classify(limit, secWindow(4, 6)); err != nil || !step.split {
		t.Fatalf("two seconds: step %+v, err %v; want a split", step, err)
	}
	piece := secWindow(4, 5)
	_, err := rt.classify(limit, piece)
	if !isFatal(err) {
		t.Fatalf("one second: %v, want a fatal error", err)
	}
	for _, want := range []string{"db.t", piece.start.String(), piece.end.String(), "request_query_timeout 6h0m0s", "exec_mem_limit 8589934592 bytes", "MEM_LIMIT_EXCEEDED", "Raise request_query_timeout or exec_mem_limit"} {
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
	log, sink := captureLogger(t)
	rt.log = log
	pressure := flightText(processMemory)
	part := secWindow(0, 4)
	for _, want := range []string{wait, wait, split} {
		step, err := rt.classify(pressure, part)
		if err != nil || step.wait <= 0 || step.split != (want == split) {
			t.Fatalf("step %+v, err %v; want a %s after a backoff", step, err, want)
		}
	}
	if n := len(sink.Lines("WARN", "memory pressure on the Doris BE (attempt")); n != 2 {
		t.Errorf("%d same-window retries logged with their cause, want 2", n)
	}
	if n := len(sink.Lines("WARN", "3 times in a row (request_retries 3); reading it as two halves")); n != 1 {
		t.Errorf("the halving was logged %d times, want once", n)
	}
	halves, _ := splitWindow(part)
	if step, err := rt.classify(pressure, halves[0]); err != nil || step.split {
		t.Fatalf("first failure of a half: step %+v, err %v; want the half read again", step, err)
	}
	second := secWindow(0, 1)
	for i := 1; i < rt.conf.Retries; i++ {
		if step, err := rt.classify(pressure, second); err != nil || step.split {
			t.Fatalf("one second, failure %d: step %+v, err %v; want it read again", i, step, err)
		}
	}
	_, err := rt.classify(pressure, second)
	if !isFatal(err) {
		t.Fatalf("one second refused %d times: %v, want a fatal error", rt.conf.Retries, err)
	}
	for _, want := range []string{"db.t", second.start.String(), "memory pressure", "3 times in a row (request_retries 3)", "Process memory not enough", "be.INFO"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fatal error %q does not name %q", err, want)
		}
	}
}

// TestClassifyOwnMemLimitSplitsAtOnce: a query over its own exec_mem_limit
// needs as much again, so it is halved at its first failure.
func TestClassifyOwnMemLimitSplitsAtOnce(t *testing.T) {
	rt, _ := testRetry(t)
	step, err := rt.classify(flightText(ownMemLimit), secWindow(0, 4))
	if err != nil || !step.split || step.wait != 0 {
		t.Fatalf("step %+v, err %v; want an immediate split", step, err)
	}
}

// Doris's query_timeout used up while a slow output held the query is the
// output's doing: however often it repeats, the same window is read again,
// never halved (halves would be held as long) and never fatal.
func TestOutputHeldTimeoutNeverSplitsOrStops(t *testing.T) {
	rt, _ := testRetry(t)
	held := &outputHeldError{waited: time.Second, held: time.Minute, err: flightText("(10.0.0.1)[TIMEOUT]query is timeout")}
	for i := range 4 * rt.conf.Retries {
		step, err := rt.classify(held, rt.w)
		if err != nil || step.split {
			t.Fatalf("attempt %d: split %v, error %v; want the same window again", i+1, step.split, err)
		}
		if step.wait <= 0 {
			t.Fatalf("attempt %d: no wait before reading again", i+1)
		}
	}
}
