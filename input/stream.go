package input

import (
	"context"
	"fmt"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
)

// window is the binlog range being read, [start, end) in Doris wall-clock
// seconds, and the last row of it already emitted.
type window struct {
	start, end string
	last       *checkpoint.RowPos
}

// runStream follows the binlog forever: take end = the current Doris time,
// read [start, end), then start = end. Windows chain without gaps, and a
// window is never shortened or skipped.
func (r *reader) runStream(g *generation, batcher *service.Batcher, st checkpoint.State) error {
	w := window{start: st.WindowStart, end: st.WindowEnd, last: st.Last}
	r.log.Infof("Binlog phase: reading %s changes from %s", r.conf.IncrementType, w.start)
	lastTick := time.Time{}
	for {
		var now *doris.Timestamp // the Doris time the window end came from
		if w.end == "" {
			ts, tick, err := r.nextWindowEnd(g.ctx, g.conn, w.start, lastTick)
			if err != nil {
				return err
			}
			w.end, lastTick, now = ts.Text, tick, &ts
		}
		if err := r.guardExpiry(g.ctx, g.conn, w, now); err != nil {
			return err
		}
		began := time.Now()
		if err := r.readWindowWithRetry(g, batcher, &w); err != nil {
			return err
		}
		r.m.window.Timing(time.Since(began).Nanoseconds())
		w = window{start: w.end}
	}
}

// nextWindowEnd waits for the next poll tick and returns the current Doris
// time once it has moved past start.
func (r *reader) nextWindowEnd(ctx context.Context, c *conn, start string, lastTick time.Time) (doris.Timestamp, time.Time, error) {
	bo := newRetryBackoff()
	failing := false
	for {
		if wait := time.Until(nextTick(lastTick, r.conf.PollInterval)); wait > 0 {
			if err := waitFor(ctx, wait); err != nil {
				return doris.Timestamp{}, lastTick, err
			}
		}
		lastTick = time.Now()
		r.m.refreshLag()
		ts, err := c.rest.CurrentTimestamp(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return doris.Timestamp{}, lastTick, ctx.Err()
			}
			if !failing {
				r.log.Warnf("Reading the current Doris time failed, retrying with backoff: %v", err)
				failing = true
			}
			if err := waitFor(ctx, bo.next()); err != nil {
				return doris.Timestamp{}, lastTick, err
			}
			continue
		}
		if failing {
			r.log.Infof("Reading the current Doris time works again")
			failing = false
		}
		r.m.zoneOffsetMs.Store(zoneOffsetMs(ts))
		switch cmp := compareWall(ts.Text, start); {
		case cmp < 0:
			return doris.Timestamp{}, lastTick, fatalf("current Doris timestamp moved backwards from %s to %s", start, ts.Text)
		case cmp > 0:
			return ts, lastTick, nil
		}
	}
}

// readWindowWithRetry reads w until it is complete. A retry re-runs the same
// window and skips rows already emitted, so a failure causes no duplicates.
func (r *reader) readWindowWithRetry(g *generation, batcher *service.Batcher, w *window) error {
	rt := newWindowRetry(r.conf, r.log, *w)
	for {
		err := r.readWindow(g, batcher, w)
		if err == nil {
			rt.recovered()
			return nil
		}
		if g.ctx.Err() != nil {
			return context.Cause(g.ctx)
		}
		wait, err := rt.classify(err)
		if err != nil {
			return err
		}
		if rt.needsNewSession {
			g.conn.resetFlight()
		}
		if err := waitFor(g.ctx, wait); err != nil {
			return err
		}
	}
}

// readWindow runs one @incr query for w and emits its rows after w.last. The
// window's final emit carries the next window's start, which is what moves
// the checkpoint past an empty or finished window.
func (r *reader) readWindow(g *generation, batcher *service.Batcher, w *window) error {
	fc, err := g.conn.flightClient(g.ctx)
	if err != nil {
		return err
	}
	qctx, cancel := context.WithTimeout(g.ctx, r.conf.QueryTimeout)
	defer cancel()
	sql := doris.IncrSQL(r.conf.DB, r.conf.Table, r.conf.ReadFields, w.start, w.end, r.conf.IncrementType)
	r.log.Debugf("Reading binlog window [%s, %s) of %s.%s", w.start, w.end, r.conf.DB, r.conf.Table)
	cb := newWindowBatcher(r, g, batcher, w)
	defer cb.close()
	if err := fc.Query(qctx, sql, cb.record); err != nil {
		return fmt.Errorf("binlog window [%s, %s): %w", w.start, w.end, err)
	}
	if err := cb.finish(); err != nil {
		return err
	}
	done := checkpoint.State{Version: stateVersion, Table: r.conf.DB + "." + r.conf.Table, Phase: phaseBinlog, WindowStart: w.end}
	return r.emit(g, batcher, nil, done)
}

// tickSlack is how long after a whole second a poll runs.
const tickSlack = 30 * time.Millisecond

// nextTick is the first moment, at least interval after last, that lies just
// after a whole second. Window ends are Doris seconds (floored), so a poll
// right after a second boundary closes the window as soon as its last second
// has passed; a poll at x.95 would leave commits of that second waiting one
// more interval. The alignment uses the local clock: a skew from the FE's
// only costs latency, never correctness.
func nextTick(last time.Time, interval time.Duration) time.Time {
	t := last.Add(interval)
	aligned := t.Truncate(time.Second).Add(tickSlack)
	// Ticks run a little late, so last+interval usually lies just past the
	// aligned moment of its own second; that moment still counts.
	if aligned.Before(t.Add(-tickTolerance)) {
		aligned = aligned.Add(time.Second)
	}
	return aligned
}

// tickTolerance is how much sooner than last+interval a tick may run.
const tickTolerance = 200 * time.Millisecond
