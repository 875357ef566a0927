package input

import (
	"context"

	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
)

// guardExpiry compares a window's start with binlog.ttl_seconds before it is
// read. Doris itself silently starts detail and append_only reads at the first
// retained change, so without this check an expired gap would go unnoticed.
// now is the Doris time the window end was taken from, or nil to ask Doris.
func (wr *windowReader) guardExpiry(ctx context.Context, t *tableInfo, w window, now *doris.Timestamp) error {
	props, err := t.properties(ctx, false)
	if err != nil || props.TTLSeconds <= 0 {
		// Without the TTL no gap can be computed; the read itself still
		// fails loudly for min_delta.
		return nil
	}
	if now == nil {
		ts, err := wr.c.currentBound(ctx)
		if err != nil {
			return nil
		}
		now = &ts
	}
	ts := *now
	// Like with like: the window start is a UTC bound, and the retention
	// limit is an instant from /api/tso.
	startMs, ok := boundMs(w.start)
	if !ok {
		return nil
	}
	retainedFrom := ts.PhysicalMs - props.TTLSeconds*1000
	if startMs > retainedFrom {
		return nil
	}
	gapSeconds := (retainedFrom-startMs)/1000 + 1
	wr.m.expiredGaps.Incr(1, t.name.key)
	lost := wr.c.describeBound(doris.UTCWindowBound(retainedFrom))
	msg := "binlog window [%s, %s) of %s starts before the oldest retained change: %d seconds of changes " +
		"(committed from %s until %s) are gone because of binlog.ttl_seconds=%d. To recover: stop the pipeline, " +
		"delete checkpoint key %s (and %s.bak) from cache %s or choose a new checkpoint_cache_key, and restart with " +
		"scan_mode: initial for a fresh snapshot; consider raising binlog.ttl_seconds"
	args := []any{w.start, w.end, t.name.key, gapSeconds, wr.c.describeBound(w.start), lost, props.TTLSeconds,
		wr.conf.CheckpointKey, wr.conf.CheckpointKey, wr.conf.CheckpointCache}
	if wr.conf.OnExpired == "fail" || wr.conf.IncrementType == "MIN_DELTA" {
		return fatalf(msg+" (binlog_on_expired: fail stops here)", args...)
	}
	wr.log.Errorf(msg+" (binlog_on_expired: continue goes on from the first retained change)", args...)
	return nil
}
