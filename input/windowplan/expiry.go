package windowplan

import (
	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Gap is the part of a window that starts before the oldest change the
// table's binlog retains: its changes are gone.
type Gap struct {
	FromMs         int64 // where the undelivered part starts
	RetainedFromMs int64 // changes committed at or before this ms are gone
	TTLSeconds     int64 // the table's binlog.ttl_seconds
}

// Seconds is how many seconds of changes the gap lost, counted as a user
// reads it: a gap that starts at the retention edge lost one.
func (g Gap) Seconds() int64 { return (g.RetainedFromMs-g.FromMs)/1000 + 1 }

// Expired compares the undelivered part of part with the table's binlog
// retention of ttlSeconds, at now, the current Doris time. Doris itself
// silently starts detail and append_only reads at the first retained
// change, so without this check an expired gap would go unnoticed. The
// undelivered part starts at part.Start, or at the commit of skip (the
// last row handed on) when that is later. A ttlSeconds of 0 or less keeps
// the binlog for ever.
func Expired(part Window, skip *checkpoint.Pos, ttlSeconds int64, now Bound) (Gap, bool) {
	if ttlSeconds <= 0 {
		return Gap{}, false
	}
	startMs := part.Start.Ms()
	if skip != nil {
		startMs = max(startMs, doris.PhysicalMs(skip.TSO))
	}
	// Doris drops a record once its commit ms <= now - TTL.
	retainedFrom := now.Ms() - ttlSeconds*1000
	if startMs > retainedFrom {
		return Gap{}, false
	}
	return Gap{FromMs: startMs, RetainedFromMs: retainedFrom, TTLSeconds: ttlSeconds}, true
}

// ExpiryStops tells whether an expired gap stops the input: always with
// binlog_on_expired fail, and with min_delta, which cannot skip a gap
// (binlog_increment_type as the config normalises it, upper case).
// Otherwise (continue) the read goes on from the first retained change.
func ExpiryStops(onExpired, incrementType string) bool {
	return onExpired == "fail" || incrementType == "MIN_DELTA"
}
