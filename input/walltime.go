package input

import (
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
)

// Window bounds are Doris wall-clock seconds ("yyyy-MM-dd HH:mm:ss") in the
// FE's session time zone. The input learns that zone's offset from each
// (text, physical ms) pair that CurrentTimestamp returns, which is enough to
// turn a bound into epoch milliseconds for lag and expiry checks.
const wallLayout = "2006-01-02 15:04:05"

func zoneOffsetMs(ts doris.Timestamp) int64 {
	t, err := time.Parse(wallLayout, ts.Text)
	if err != nil {
		return 0
	}
	return t.UnixMilli() - ts.PhysicalMs/1000*1000
}

// wallToMs converts a wall-clock bound to epoch ms given the zone offset.
func wallToMs(text string, offsetMs int64) (int64, bool) {
	t, err := time.Parse(wallLayout, text)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli() - offsetMs, true
}

// compareWall orders two wall-clock bounds; their fixed-width layout makes a
// string comparison exact.
func compareWall(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
