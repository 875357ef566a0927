package input

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
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
	currentBound(ctx context.Context) (doris.Timestamp, error)
}

// currentBound is the current Doris time as a window bound: /api/tso's
// physical time, floored to the second and formatted in UTC on the client,
// with no FROM_UNIXTIME round trip.
func (c *conn) currentBound(ctx context.Context) (doris.Timestamp, error) {
	info, err := c.rest.CurrentTSO(ctx)
	if err != nil {
		return doris.Timestamp{}, err
	}
	return doris.Timestamp{Text: doris.UTCWindowBound(info.PhysicalMs), PhysicalMs: info.PhysicalMs - info.PhysicalMs%1000}, nil
}

// boundMs converts a window bound to epoch ms.
func boundMs(text string) (int64, bool) {
	ms, err := doris.ParseUTCWindowBound(text)
	return ms, err == nil
}

// describeBound names a window bound in UTC and, when it differs, on the
// FE's wall clock, which is what users see in Doris.
func (c *conn) describeBound(text string) string {
	ms, ok := boundMs(text)
	if !ok || c.zone.Location == nil {
		return text + " " + windowZoneLabel
	}
	fe := c.zone.Format(ms)
	if fe == text {
		return text + " " + windowZoneLabel
	}
	return fmt.Sprintf("%s %s (%s %s)", text, windowZoneLabel, fe, c.zone.Name)
}

// compareWall orders two wall-clock bounds; their fixed-width layout makes a
// string comparison exact.
func compareWall(a, b string) int { return strings.Compare(a, b) }

// nextWholeSecond waits for the Doris second after the current one and
// returns it. Stream starts are whole seconds, so a start taken by flooring
// "now" reaches back to the beginning of the current second: every commit of
// that second before the snapshot would come again from the binlog. Starting
// a binlog at the next boundary, and reading the snapshot only after it,
// shrinks that overlap to the milliseconds between the boundary and the
// snapshot read. A few attempts bound the wait if clocks disagree.
func nextWholeSecond(ctx context.Context, c dorisClock) (doris.Timestamp, error) {
	first, err := c.currentBound(ctx)
	if err != nil {
		return first, err
	}
	ts := first
	for range 3 {
		now := time.Now()
		if err := doris.Sleep(ctx, now.Truncate(time.Second).Add(time.Second+tickSlack).Sub(now)); err != nil {
			return ts, err
		}
		if ts, err = c.currentBound(ctx); err != nil || compareWall(ts.Text, first.Text) > 0 {
			return ts, err
		}
	}
	return ts, nil
}
