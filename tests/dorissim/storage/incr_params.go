package storage

import (
	"strings"
	"time"
)

// Increment types accepted by @incr.
const (
	IncrDetail     = "DETAIL"
	IncrMinDelta   = "MIN_DELTA"
	IncrAppendOnly = "APPEND_ONLY"
)

// @incr parameter keys, spelled as documented.
const (
	paramStart = "startTimestamp"
	paramEnd   = "endTimestamp"
	paramType  = "incrementType"
)

// IncrParams are the raw @incr(...) arguments and the session time zone.
type IncrParams struct {
	Params   map[string]string // raw 'key' = 'value' pairs as written in @incr(...), keys case as written
	Location *time.Location    // session time_zone
	MemLimit int64             // session exec_mem_limit in bytes; 0 is no limit
}

// incrRequest is the validated form of IncrParams.
type incrRequest struct {
	hasStart, hasEnd bool
	startMs, endMs   int64
	typ              string // "" when not given
}

func parseIncrParams(p IncrParams) (incrRequest, error) {
	var req incrRequest
	loc := p.Location
	if loc == nil {
		loc = time.UTC
	}
	for k, v := range p.Params {
		var err error
		switch k {
		case paramStart:
			req.hasStart, req.startMs, err = parseIncrTimestamp(v, loc)
		case paramEnd:
			req.hasEnd, req.endMs, err = parseIncrTimestamp(v, loc)
		case paramType:
			req.typ, err = parseIncrType(v)
		default:
			return req, errorf("Unsupported parameter in incr query")
		}
		if err != nil {
			return req, err
		}
	}
	return req, nil
}

// parseIncrTimestamp reads yyyy-MM-dd HH:mm:ss in the session zone; "0"
// means no bound. The FE parses it with TimeUtils.timeStringToLong, i.e.
// LocalDateTime.atZone(session zone): a repeated local time is the earlier
// instant and a skipped one moves later by the gap.
func parseIncrTimestamp(v string, loc *time.Location) (bool, int64, error) {
	s := strings.TrimSpace(v)
	if s == "0" {
		return false, 0, nil
	}
	wall, err := time.Parse(datetimeLayout, s)
	if err != nil {
		return false, 0, errorf("Invalid TIMESTAMP format in incr clause: %s", v)
	}
	ts, _ := LocalInstant(wall, loc, GapShiftForward)
	return true, ts.UnixMilli(), nil
}

func parseIncrType(v string) (string, error) {
	switch t := strings.ToUpper(strings.TrimSpace(v)); t {
	case IncrDetail, IncrMinDelta, IncrAppendOnly:
		return t, nil
	}
	return "", errorf("Unsupported parameter in incr query")
}
