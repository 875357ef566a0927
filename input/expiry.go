package input

import (
	"context"
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// guardExpiry compares the undelivered part of a window with
// binlog.ttl_seconds before every attempt to read it: the first, and every
// retry, of chain, catch-up and re-read windows alike. Doris itself
// silently starts detail and append_only reads at the first retained
// change, so without this check an expired gap would go unnoticed.
//
// It fails closed: when the TTL or the current Doris time cannot be read it
// returns a (retryable) error and the window is not read. The undelivered
// part starts at part.Start, or just after skip (the last row handed on)
// when that is later. now is the Doris time the window end was just taken
// from, or nil to ask Doris. accepted reports a gap that binlog_on_expired:
// continue lets the read go on from; it is counted and logged once, by the
// caller's not asking again.
func (wr *windowReader) guardExpiry(ctx context.Context, t *tableInfo, part windowplan.Window, now *windowplan.Bound, skip *checkpoint.Pos) (accepted bool, err error) {
	props, err := t.properties(ctx, false)
	if err != nil {
		return false, fmt.Errorf("checking the binlog retention of %s before reading [%s, %s): %w", t.name.key, part.Start, part.End, err)
	}
	if props.TTLSeconds <= 0 {
		return false, nil // the table keeps its binlog for ever
	}
	if now == nil {
		ts, err := wr.clock.currentBound(ctx)
		if err != nil {
			return false, fmt.Errorf("reading the current Doris time to check the binlog retention of %s before reading [%s, %s): %w",
				t.name.key, part.Start, part.End, err)
		}
		now = &ts
	}
	gap, expired := windowplan.Expired(part, skip, props.TTLSeconds, *now)
	if !expired {
		return false, nil
	}
	return true, wr.reportExpired(t, part, gap)
}

// reportExpired counts an expired gap and applies binlog_on_expired: a
// fatal error for fail (and always for min_delta, which cannot skip), an
// error log for continue.
func (wr *windowReader) reportExpired(t *tableInfo, part windowplan.Window, gap windowplan.Gap) error {
	wr.m.expiredGaps.Incr(1, t.name.key)
	from := wr.c.describeBound(windowplan.BoundAt(gap.FromMs))
	lost := wr.c.describeBound(windowplan.BoundAt(gap.RetainedFromMs))
	msg := "binlog window [%s, %s) of %s starts before the oldest retained change: %d seconds of changes " +
		"(committed from %s until %s) are gone because of binlog.ttl_seconds=%d. To recover: stop the pipeline, " +
		"delete checkpoint key %s (and %s.bak) from cache %s or choose a new checkpoint_cache_key, and restart with " +
		"scan_mode: initial for a fresh snapshot; consider raising binlog.ttl_seconds"
	args := []any{part.Start, part.End, t.name.key, gap.Seconds(), from, lost, gap.TTLSeconds,
		wr.conf.CheckpointKey, wr.conf.CheckpointKey, wr.conf.CheckpointCache}
	if windowplan.ExpiryStops(wr.conf.OnExpired, wr.conf.IncrementType) {
		return fatalf(msg+" (binlog_on_expired: fail stops here)", args...)
	}
	wr.log.Errorf(msg+" (binlog_on_expired: continue goes on from the first retained change)", args...)
	return nil
}
