package input

import (
	"context"
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
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

// bound is a window bound: a whole second of the Doris clock, as UTC epoch
// ms. It comes from /api/tso (or from the checkpoint's typed bounds) and is
// formatted only where the @incr SQL is built and in logs; comparisons and
// arithmetic work on the instant.
type bound int64

// boundAt floors epoch ms to the second.
func boundAt(ms int64) bound {
	return bound(ms - ((ms%1000)+1000)%1000)
}

// boundOf is the bound a checkpoint holds (UTC, as window_zone says once
// the state is converted); no text is involved.
func boundOf(b checkpoint.Bound) bound { return bound(b.Ms()) }

// stored is b as the checkpoint holds it.
func (b bound) stored() checkpoint.Bound { return checkpoint.BoundAt(b.ms()) }

// ms is the bound's epoch ms, a multiple of 1000.
func (b bound) ms() int64 { return int64(b) }

// String is the bound's text, yyyy-MM-dd HH:mm:ss in UTC: what the @incr
// SQL and the checkpoint hold.
func (b bound) String() string { return doris.UTCWindowBound(int64(b)) }

// dorisClock tells the current Doris time as a window bound; conn asks
// /api/tso.
type dorisClock interface {
	currentBound(ctx context.Context) (bound, error)
}

// currentBound is the current Doris time as a window bound: /api/tso's
// physical time, floored to the second, with no FROM_UNIXTIME round trip.
func (c *conn) currentBound(ctx context.Context) (bound, error) {
	info, err := doris.CurrentTSO(ctx, c.rest)
	if err != nil {
		return 0, err
	}
	return boundAt(info.PhysicalMs), nil
}

// describeBound names a window bound in UTC and, when it differs, on the
// FE's wall clock, which is what users see in Doris.
func (c *conn) describeBound(b bound) string {
	text := b.String()
	if c.zone.Location == nil {
		return text + " " + windowZoneLabel
	}
	fe := c.zone.Format(b.ms())
	if fe == text {
		return text + " " + windowZoneLabel
	}
	return fmt.Sprintf("%s %s (%s %s)", text, windowZoneLabel, fe, c.zone.Name)
}
