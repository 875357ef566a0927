package input

import (
	"context"
	"fmt"

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
