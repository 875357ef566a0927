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
func (co *coordinator) guardExpiry(ctx context.Context, t *tableInfo, w window, now *doris.Timestamp) error {
	props, err := t.properties(ctx, false)
	if err != nil || props.TTLSeconds <= 0 {
		// Without the TTL no gap can be computed; the read itself still
		// fails loudly for min_delta.
		return nil
	}
	if now == nil {
		ts, err := co.c.rest.CurrentTimestamp(ctx)
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
	co.m.expiredGaps.Incr(1, t.name.key)
	lost := time.UnixMilli(retainedFrom + offset).UTC().Format(wallLayout)
	msg := "binlog window [%s, %s) of %s starts before the oldest retained change: %d seconds of changes " +
		"(committed from %s until %s) are gone because of binlog.ttl_seconds=%d. To recover: stop the pipeline, " +
		"delete checkpoint key %s (and %s.bak) from cache %s or choose a new checkpoint_cache_key, and restart with " +
		"scan_mode: initial for a fresh snapshot; consider raising binlog.ttl_seconds"
	args := []any{w.start, w.end, t.name.key, gapSeconds, w.start, lost, props.TTLSeconds,
		co.conf.CheckpointKey, co.conf.CheckpointKey, co.conf.CheckpointCache}
	if co.conf.OnExpired == "fail" || co.conf.IncrementType == "MIN_DELTA" {
		return fatalf(msg+" (binlog_on_expired: fail stops here)", args...)
	}
	co.log.Errorf(msg+" (binlog_on_expired: continue goes on from the first retained change)", args...)
	return nil
}
