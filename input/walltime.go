package input

import (
	"context"
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// Window bounds are UTC wall-clock seconds ("yyyy-MM-dd HH:mm:ss"), and every
// Flight session runs with time_zone '+00:00', so Doris parses them as UTC:
// @incr bounds are read in the session zone (FE OlapScanNode
// .parseChangeTimestamp -> TimeUtils.timeStringToLong -> LocalDateTime
// .atZone(session zone)). UTC has no daylight-saving changes, so a bound is
// one instant and consecutive bounds never go backwards or skip, whatever
// zone the FE runs in. User-facing times (scan_timestamp, offset_timestamp)
// stay in the FE's zone and are converted at the edges.

// windowZoneLabel is how logs name the zone of window bounds.
const windowZoneLabel = "UTC"

// dorisClock tells the current Doris time as a window bound; conn asks
// /api/tso.
type dorisClock interface {
	currentBound(ctx context.Context) (windowplan.Bound, error)
}

// currentBound is the current Doris time as a window bound: /api/tso's
// physical time, floored to the second, with no FROM_UNIXTIME round trip.
func (c *conn) currentBound(ctx context.Context) (windowplan.Bound, error) {
	info, err := doris.CurrentTSO(ctx, c.rest)
	if err != nil {
		return 0, err
	}
	return windowplan.BoundAt(info.PhysicalMs), nil
}

// describeBound names a window bound in UTC and, when it differs, on the
// FE's wall clock, which is what users see in Doris.
func (c *conn) describeBound(b windowplan.Bound) string {
	text := b.String()
	if c.zone.Location == nil {
		return text + " " + windowZoneLabel
	}
	fe := c.zone.Format(b.Ms())
	if fe == text {
		return text + " " + windowZoneLabel
	}
	return fmt.Sprintf("%s %s (%s %s)", text, windowZoneLabel, fe, c.zone.Name)
}

// nextWholeSecond waits for the Doris second after the current one and
// returns it. Stream starts are whole seconds, so a start taken by flooring
// "now" reaches back to the beginning of the current second: every commit of
// that second before the snapshot would come again from the binlog. Starting
// a binlog at the next boundary, and reading the snapshot only after it,
// shrinks that overlap to the milliseconds between the boundary and the
// snapshot read. A few attempts bound the wait if clocks disagree.
func nextWholeSecond(ctx context.Context, c dorisClock) (windowplan.Bound, error) {
	first, err := c.currentBound(ctx)
	if err != nil {
		return first, err
	}
	ts := first
	for range 3 {
		now := time.Now()
		if err := doris.Sleep(ctx, now.Truncate(time.Second).Add(time.Second+windowplan.TickSlack).Sub(now)); err != nil {
			return ts, err
		}
		if ts, err = c.currentBound(ctx); err != nil || ts > first {
			return ts, err
		}
	}
	return ts, nil
}

// boundResult is a bound resolved in the background, or why it was not.
type boundResult struct {
	ts  windowplan.Bound
	err error
}

// awaitNextWholeSecond runs nextWholeSecond in the background; the channel
// gets its one result. Cancelling ctx ends the wait.
func awaitNextWholeSecond(ctx context.Context, c dorisClock) <-chan boundResult {
	out := make(chan boundResult, 1)
	go func() {
		ts, err := nextWholeSecond(ctx, c)
		out <- boundResult{ts: ts, err: err}
	}()
	return out
}
