package rowjson

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	// A zoned timestamp must render wherever the connector runs, including
	// containers without /usr/share/zoneinfo.
	_ "time/tzdata"
)

// arrowOffset is the offset form of an Arrow timestamp zone: [+-]HH:MM.
var arrowOffset = regexp.MustCompile(`^([+-])(\d{2}):(\d{2})$`)

// arrowZone loads the zone an Arrow timestamp carries: an IANA name ("UTC",
// "Asia/Shanghai") or an absolute offset ("+00:00", "-05:00"), as the Arrow
// format defines it. Doris attaches its session time_zone.
func arrowZone(name string) (*time.Location, error) {
	if m := arrowOffset.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		mm, _ := strconv.Atoi(m[3])
		if h > 14 || mm > 59 {
			return nil, fmt.Errorf("offset out of range")
		}
		secs := h*3600 + mm*60
		if m[1] == "-" {
			secs = -secs
		}
		if secs == 0 {
			return time.UTC, nil
		}
		return time.FixedZone(name, secs), nil
	}
	if name == "Z" {
		return time.UTC, nil
	}
	return time.LoadLocation(name)
}
