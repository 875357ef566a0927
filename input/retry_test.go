package input

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/changes"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

func testRetry(t *testing.T) (*windowRetry, *retryAges) {
	t.Helper()
	res := service.MockResources()
	ages := newRetryAges(res.Metrics())
	conf := &Config{QueryTimeout: time.Minute, ExecMemLimit: 1 << 20, CheckpointKey: "k", CheckpointCache: "c"}
	w := window{start: "2026-01-01 00:00:00", end: "2026-01-01 00:00:10"}
	return newWindowRetry(conf, res.Logger(), ages, "db.t", w), ages
}

func TestClassifyPermanentStops(t *testing.T) {
	rt, _ := testRetry(t)
	cause := permanent(errors.New("binlog row 3 of db.t: Unsupported Doris binlog operation: 7"))
	_, err := rt.classify(fmt.Errorf("binlog window [a, b) of db.t: %w", cause), rt.w)
	if !isFatal(err) {
		t.Fatalf("a permanent error gave %v, want a fatal error", err)
	}
	for _, want := range []string{"db.t", rt.w.start, rt.w.end, "operation: 7", "cannot fix"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fatal error %q does not name %q", err, want)
		}
	}
}

// A row that package changes cannot convert stops the input as input's own
// permanent failures do: reading the window again reads the same row.
func TestClassifyConversionFailureStops(t *testing.T) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "__DORIS_BINLOG_TSO__", Type: arrow.PrimitiveTypes.Int64},
		{Name: "__DORIS_BINLOG_LSN__", Type: arrow.PrimitiveTypes.Int64},
		{Name: "__DORIS_BINLOG_OP__", Type: arrow.PrimitiveTypes.Int8},
	}, nil))
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(1)
	b.Field(1).(*array.Int64Builder).Append(doris.Compose(1_760_000_000_000, 0))
	b.Field(2).(*array.Int64Builder).Append(0)
	b.Field(3).(*array.Int8Builder).Append(7)
	rec := b.NewRecordBatch()
	defer rec.Release()
	pool := changes.NewPool(func() *changes.Converter {
		return changes.NewConverter(changes.Table{DB: "db", Name: "t", Key: "db.t"}, rowjson.Options{Binlog: true}, nil)
	}, 1, nil)
	res := pool.Submit(rec).Wait()
	pool.Close()
	if res.Err == nil {
		t.Fatal("operation 7 converted")
	}
	rt, _ := testRetry(t)
	_, err := rt.classify(fmt.Errorf("binlog window [a, b) of db.t: %w", res.Err), rt.w)
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
	for piece.end != "" {
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
		halves, ok := splitWindow(window{start: tc.start, end: tc.end})
		if ok != tc.ok {
			t.Fatalf("splitWindow(%s, %s) ok = %v, want %v", tc.start, tc.end, ok, tc.ok)
		}
		if !ok {
			continue
		}
		a, b := halves[0], halves[1]
		if a.start != tc.start || b.end != tc.end || a.end != b.start {
			t.Fatalf("halves %v of [%s, %s) do not chain", halves, tc.start, tc.end)
		}
		if mustMs(t, a.end) <= mustMs(t, a.start) || mustMs(t, b.end) <= mustMs(t, b.start) || mustMs(t, a.end)%1000 != 0 {
			t.Fatalf("halves %v are not whole non-empty seconds", halves)
		}
	}
}

func mustMs(t *testing.T, s string) int64 {
	t.Helper()
	ms, ok := boundMs(s)
	if !ok {
		t.Fatalf("bad bound %q", s)
	}
	return ms
}
