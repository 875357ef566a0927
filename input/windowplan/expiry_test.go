package windowplan

import (
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// The undelivered part of a window is measured against the retention at
// the Doris time now: Doris drops a change once its commit ms <= now - TTL.
func TestExpiredMeasuresTheUndeliveredPart(t *testing.T) {
	w := Window{Start: mustBound(t, "2026-12-01 10:00:00"), End: mustBound(t, "2026-12-01 10:01:00")}
	delivered := &checkpoint.Pos{TSO: doris.Compose(mustBound(t, "2026-12-01 10:00:30").Ms(), 0), Table: "db.t"}
	for _, tc := range []struct {
		name    string
		skip    *checkpoint.Pos
		ttl     int64
		now     string
		expired bool
		seconds int64
	}{
		{"starts at the retention edge", nil, 100, "2026-12-01 10:01:40", true, 1},
		{"a minute past the edge", nil, 100, "2026-12-01 10:02:40", true, 61},
		{"inside the retention", nil, 100, "2026-12-01 10:01:39", false, 0},
		{"the delivered rows do not count", delivered, 100, "2026-12-01 10:01:40", false, 0},
		{"the rest past the edge", delivered, 100, "2026-12-01 10:02:10", true, 1},
		{"a table that keeps its binlog", nil, 0, "2036-12-01 10:00:00", false, 0},
	} {
		gap, expired := Expired(w, tc.skip, tc.ttl, mustBound(t, tc.now))
		if expired != tc.expired || (expired && gap.Seconds() != tc.seconds) {
			t.Errorf("%s: expired %v, gap %+v (%d s); want %v, %d s", tc.name, expired, gap, gap.Seconds(), tc.expired, tc.seconds)
		}
		if expired && gap.TTLSeconds != tc.ttl {
			t.Errorf("%s: gap names ttl %d, want %d", tc.name, gap.TTLSeconds, tc.ttl)
		}
	}
}

// binlog_on_expired fail stops at a gap, continue goes on, except with
// min_delta, which cannot skip one.
func TestExpiryStops(t *testing.T) {
	for _, tc := range []struct {
		onExpired, incr string
		stops           bool
	}{
		{"fail", "DETAIL", true},
		{"continue", "DETAIL", false},
		{"continue", "APPEND_ONLY", false},
		{"continue", "MIN_DELTA", true},
		{"fail", "MIN_DELTA", true},
	} {
		if got := ExpiryStops(tc.onExpired, tc.incr); got != tc.stops {
			t.Errorf("ExpiryStops(%s, %s) = %v, want %v", tc.onExpired, tc.incr, got, tc.stops)
		}
	}
}
