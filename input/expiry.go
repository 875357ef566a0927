package input

import (
	"context"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
)

// guardExpiry compares a window's start with binlog.ttl_seconds before it is
// read. Doris itself silently starts detail and append_only reads at the first
// retained change, so without this check an expired gap would go unnoticed.
// now is the Doris time the window end was taken from, or nil to ask Doris.
func (r *reader) guardExpiry(ctx context.Context, c *conn, w window, now *doris.Timestamp) error {
	props, err := c.tableProperties(ctx, false)
	if err != nil || props.TTLSeconds <= 0 {
		// Without the TTL no gap can be computed; the read itself still
		// fails loudly for min_delta.
		return nil
	}
	if now == nil {
		ts, err := c.rest.CurrentTimestamp(ctx)
		if err != nil {
			return nil
		}
		now = &ts
	}
	ts := *now
	offset := zoneOffsetMs(ts)
	startMs, ok := wallToMs(w.start, offset)
	if !ok {
		return nil
	}
	retainedFrom := ts.PhysicalMs - props.TTLSeconds*1000
	if startMs > retainedFrom {
		return nil
	}
	gapSeconds := (retainedFrom-startMs)/1000 + 1
	r.m.expiredGaps.Incr(1)
	lost := time.UnixMilli(retainedFrom + offset).UTC().Format(wallLayout)
	msg := "binlog window [%s, %s) of %s.%s starts before the oldest retained change: %d seconds of changes " +
		"(committed from %s until %s) are gone because of binlog.ttl_seconds=%d. To recover: stop the pipeline, " +
		"delete checkpoint key %s (and %s.bak) from cache %s or choose a new checkpoint_cache_key, and restart with " +
		"scan_mode: initial for a fresh snapshot; consider raising binlog.ttl_seconds"
	args := []any{w.start, w.end, r.conf.DB, r.conf.Table, gapSeconds, w.start, lost, props.TTLSeconds,
		r.conf.CheckpointKey, r.conf.CheckpointKey, r.conf.CheckpointCache}
	if r.conf.OnExpired == "fail" || r.conf.IncrementType == "MIN_DELTA" {
		return fatalf(msg+" (binlog_on_expired: fail stops here)", args...)
	}
	r.log.Errorf(msg+" (binlog_on_expired: continue goes on from the first retained change)", args...)
	return nil
}
