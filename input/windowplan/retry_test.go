package windowplan

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
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

func testRetry(t *testing.T) (*Retry, *Ages) {
	t.Helper()
	res := service.MockResources()
	ages := NewAges(res.Metrics().NewCounter("doris_binlog_window_retries_total", "table"), res.Metrics().NewGauge("doris_binlog_window_retry_age_seconds"))
	conf := RetryConfig{QueryTimeout: time.Minute, ExecMemLimit: 1 << 20, Retries: 3, CheckpointKey: "k", CheckpointCache: "c"}
	w := Window{Start: mustBound(t, "2026-01-01 00:00:00"), End: mustBound(t, "2026-01-01 00:00:10")}
	return NewRetry(conf, res.Logger(), ages, "db.t", w), ages
}

func TestClassifyPermanentStops(t *testing.T) {
	rt, _ := testRetry(t)
	cause := doris.Permanent(errors.New("binlog row 3 of db.t: Unsupported Doris binlog operation: 7"))
	_, err := rt.Classify(fmt.Errorf("binlog window [a, b) of db.t: %w", cause), rt.w)
	if !IsStop(err) {
		t.Fatalf("a permanent error gave %v, want a fatal error", err)
	}
	for _, want := range []string{"db.t", rt.w.Start.String(), rt.w.End.String(), "operation: 7", "cannot fix"} {
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
	_, err := rt.Classify(fmt.Errorf("binlog window [a, b) of db.t: %w", convErr), rt.w)
	if !IsStop(err) || !strings.Contains(err.Error(), "operation: 7") {
		t.Fatalf("a row changes cannot convert gave %v, want a fatal error naming the operation", err)
	}
}

func TestClassifyTransientWaits(t *testing.T) {
	rt, ages := testRetry(t)
	for i := 1; i <= 3; i++ {
		step, err := rt.Classify(errors.New("rpc error: code = Unavailable desc = connection refused"), rt.w)
		if err != nil || step.Split || step.Wait <= 0 {
			t.Fatalf("attempt %d: step %+v, err %v; want a wait", i, step, err)
		}
	}
	if len(ages.since) != 1 {
		t.Fatalf("%d incidents tracked, want 1", len(ages.since))
	}
	rt.Recovered()
	if len(ages.since) != 0 {
		t.Fatalf("incident still tracked after recovery")
	}
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
		{"query_timeout used up by the output", &OutputHeldError{Waited: time.Second, Held: time.Minute, Err: flightText("(10.0.0.1)[TIMEOUT]query is timeout")}, wait},
		{"own request_query_timeout", fmt.Errorf("binlog window: %w", &QueryTimeoutError{Timeout: time.Minute, Err: context.DeadlineExceeded}), split},
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
			step, err := rt.Classify(tc.err, rt.w)
			got := wait
			switch {
			case err != nil:
				if !IsStop(err) {
					t.Fatalf("error %v is not fatal", err)
				}
				got = stop
			case step.Split:
				got = split
			case step.Wait <= 0:
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
	_, err := rt.Classify(flightText("Row binlog offset has expired according to binlog.ttl_seconds"), rt.w)
	if !IsStop(err) {
		t.Fatalf("expiry gave %v, want a fatal error", err)
	}
	for _, want := range []string{"db.t", rt.w.Start.String(), rt.w.End.String(), "checkpoint key k (and k.bak)", "cache c", "scan_mode: initial", "binlog.ttl_seconds"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fatal error %q does not name %q", err, want)
		}
	}
}
