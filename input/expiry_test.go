package input

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// fakeClock is a Doris clock for tests: each call takes the next answer,
// the last one repeating.
type fakeClock struct {
	answers []windowplan.Bound
	err     error
	calls   int
}

func (f *fakeClock) currentBound(context.Context) (windowplan.Bound, error) {
	f.calls++
	if f.err != nil {
		return 0, f.err
	}
	i := min(f.calls, len(f.answers)) - 1
	return f.answers[i], nil
}

// expiryFixture is a window reader whose table keeps its binlog ttl
// seconds, with metrics to count gaps in.
func expiryFixture(t *testing.T, ttl int64, onExpired string, clock dorisClock) (*windowReader, *tableInfo, *service.Resources) {
	t.Helper()
	res := service.MockResources()
	conf := &Config{OnExpired: onExpired, IncrementType: "DETAIL", CheckpointKey: "k", CheckpointCache: "c"}
	wr := &windowReader{conf: conf, log: res.Logger(), m: newMetrics(res.Metrics()), c: &conn{}, clock: clock}
	tbl := &tableInfo{name: newTableName("db", "t"), props: &doris.TableProperties{TTLSeconds: ttl}, propAt: time.Now()}
	return wr, tbl, res
}

func testWindow(t *testing.T, start, end string) windowplan.Window {
	return windowplan.Window{Start: mustBound(t, start), End: mustBound(t, end)}
}

func TestExpiryGuardMeasuresTheUndeliveredPart(t *testing.T) {
	ctx := context.Background()
	w := testWindow(t, "2026-12-01 10:00:00", "2026-12-01 10:01:00")
	now := mustBound(t, "2026-12-01 10:01:40") // ttl 100 s: retained from 10:00:00 exclusive
	wr, tbl, _ := expiryFixture(t, 100, "fail", &fakeClock{})
	_, err := wr.guardExpiry(ctx, tbl, w, &now, nil)
	if !isFatal(err) || !strings.Contains(err.Error(), "binlog_on_expired: fail") || !strings.Contains(err.Error(), "1 seconds of changes") {
		t.Fatalf("a window starting at the retention edge: %v, want a fatal one-second gap", err)
	}
	// The rows up to 10:00:30 were delivered before: only the rest counts.
	skip := &checkpoint.Pos{TSO: doris.Compose(mustBound(t, "2026-12-01 10:00:30").Ms(), 0), Table: "db.t"}
	if accepted, err := wr.guardExpiry(ctx, tbl, w, &now, skip); accepted || err != nil {
		t.Fatalf("undelivered part inside the retention: accepted %v, err %v; want a plain read", accepted, err)
	}
	later := mustBound(t, "2026-12-01 10:01:39")
	if accepted, err := wr.guardExpiry(ctx, tbl, w, &later, nil); accepted || err != nil {
		t.Fatalf("window inside the retention: accepted %v, err %v", accepted, err)
	}
}

func TestExpiryGuardContinueCountsOnce(t *testing.T) {
	ctx := context.Background()
	w := testWindow(t, "2026-12-01 10:00:00", "2026-12-01 10:01:00")
	clock := &fakeClock{answers: []windowplan.Bound{mustBound(t, "2026-12-01 10:05:00")}}
	wr, tbl, _ := expiryFixture(t, 60, "continue", clock)
	src := &windowSource{wr: wr, t: tbl, w: w}
	accepted := false
	for range 3 { // the first attempt and two retries of one window
		if err := src.checkRetention(ctx, w, nil, &accepted); err != nil {
			t.Fatalf("binlog_on_expired continue: %v, want the read to go on", err)
		}
	}
	if !accepted {
		t.Fatalf("the gap was not accepted")
	}
	if clock.calls != 1 {
		t.Fatalf("the guard ran %d times for one window, want once: a continued gap is counted and logged once", clock.calls)
	}
}

func TestExpiryGuardMinDeltaAlwaysFails(t *testing.T) {
	w := testWindow(t, "2026-12-01 10:00:00", "2026-12-01 10:01:00")
	now := mustBound(t, "2026-12-01 11:00:00")
	wr, tbl, _ := expiryFixture(t, 60, "continue", &fakeClock{})
	wr.conf.IncrementType = "MIN_DELTA"
	if _, err := wr.guardExpiry(context.Background(), tbl, w, &now, nil); !isFatal(err) {
		t.Fatalf("min_delta over an expired gap: %v, want fatal", err)
	}
}

func TestExpiryGuardFailsClosed(t *testing.T) {
	ctx := context.Background()
	w := testWindow(t, "2026-12-01 10:00:00", "2026-12-01 10:01:00")
	down := errors.New("tso unavailable")
	wr, tbl, _ := expiryFixture(t, 60, "continue", &fakeClock{err: down})
	if _, err := wr.guardExpiry(ctx, tbl, w, nil, nil); !errors.Is(err, down) || isFatal(err) {
		t.Fatalf("unknown Doris time: %v, want a retryable error that keeps the window unread", err)
	}
	// The TTL cannot be read: the FE is not there.
	rest, err := doris.NewClient(doris.ClientConfig{FENodes: []string{"127.0.0.1:1"}, Retries: 1, ConnectTimeout: time.Second, ReadTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer rest.Close()
	res := service.MockResources()
	unknown := &tableInfo{name: newTableName("db", "t"), c: &conn{rest: rest, log: res.Logger()}}
	now := mustBound(t, "2026-12-01 10:01:00")
	if _, err := wr.guardExpiry(ctx, unknown, w, &now, nil); err == nil || isFatal(err) || !strings.Contains(err.Error(), "binlog retention of db.t") {
		t.Fatalf("unknown TTL: %v, want a retryable error naming the table", err)
	}
}

func TestExpiryGuardWithoutTTLReadsOn(t *testing.T) {
	w := testWindow(t, "2000-01-01 00:00:00", "2000-01-01 00:01:00")
	clock := &fakeClock{err: errors.New("not asked")}
	wr, tbl, _ := expiryFixture(t, 0, "fail", clock)
	if accepted, err := wr.guardExpiry(context.Background(), tbl, w, nil, nil); accepted || err != nil {
		t.Fatalf("a table that keeps its binlog: accepted %v, err %v", accepted, err)
	}
}
