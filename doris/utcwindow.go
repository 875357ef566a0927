package doris

import (
	"fmt"
	"time"
)

// UTCWindowBound renders a TSO physical time (epoch ms) as an @incr bound
// for a session whose time_zone is UTC: `yyyy-MM-dd HH:mm:ss`, floored to
// the second. UTC has no daylight-saving changes, so consecutive bounds never
// go backwards and never skip, whatever zone the FE runs in.
func UTCWindowBound(physMs int64) string {
	return time.UnixMilli(physMs).UTC().Truncate(time.Second).Format(TimestampLayout)
}

// ParseUTCWindowBound reads a bound written by UTCWindowBound back to epoch
// ms (a multiple of 1000). It accepts only the strict layout, so a bound
// that is not one of ours is an error naming the value.
func ParseUTCWindowBound(s string) (int64, error) {
	t, err := ParseTimestamp(s)
	if err != nil {
		return 0, fmt.Errorf("UTC window bound: %w", err)
	}
	return t.UnixMilli(), nil
}
