package input

import (
	"context"
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// window is a binlog range [start, end) of whole UTC seconds.
type window struct{ start, end bound }

// windowOf is the window a checkpoint stores; an open end stays unset.
// The checkpoint validated its bounds' text when it was decoded; a start
// that is not set is refused, never read as the epoch.
func windowOf(what string, w *checkpoint.Window) (out window, open bool, err error) {
	if w.Start.IsZero() {
		return out, false, fmt.Errorf("%s has no start", what)
	}
	out.start = boundOf(w.Start)
	if w.End.IsZero() {
		return out, true, nil
	}
	out.end = boundOf(w.End)
	return out, false, nil
}

// chain is the window chain that all streaming tables share: it chooses
// each window's end, reads the window for every table in the binlog phase
// and moves the chain's start past it. Windows chain without gaps, and a
// window is never shortened or skipped; a table the idle rule shows
// unchanged is left out of a window's read, which is the same as reading
// it empty (idlewindow.go).
type chain struct {
	co       *coordinator
	lastTick time.Time // when the last poll ran
}

// planEnd makes end durable before the window is read.
func (ch *chain) planEnd(ctx context.Context, end bound) error {
	co := ch.co
	co.planned.add(end)
	if err := co.resave(ctx); err != nil {
		return fmt.Errorf("saving the chosen window end %s to checkpoint_cache %s: %w", end, co.conf.CheckpointCache, err)
	}
	return nil
}

// next chooses (or resumes) the chain's next window, reads it for every
// streaming table and moves the chain past it.
func (ch *chain) next(ctx context.Context) error {
	co := ch.co
	var cur checkpoint.Window
	co.em.view(func(st *checkpoint.State) { cur = *st.Stream.Clone() })
	w, open, err := windowOf("binlog stream window", &cur)
	if err != nil {
		return err
	}
	var now *bound // the Doris time the window end came from
	if open {
		if end, ok := co.planned.next(w.start); ok {
			w.end = end // chosen before a restart: the same window again
		} else {
			ts, err := ch.windowEnd(ctx, w.start)
			if err != nil {
				return err
			}
			w.end, now = ts, &ts
			if err := ch.planEnd(ctx, w.end); err != nil {
				return err
			}
		}
	}
	tables, err := ch.windowTables(ctx, w, now)
	if err != nil {
		return err
	}
	began := time.Now()
	var dropped []string
	if len(tables) > 0 {
		dropped, err = co.wr.read(ctx, tables, w, now, cur.Last, false, func(st *checkpoint.State, last checkpoint.Pos) {
			st.ChainProgress(w.start.stored(), w.end.stored(), last)
		})
		if err != nil {
			return err
		}
	}
	co.m.window.Timing(time.Since(began).Nanoseconds())
	if err := co.em.emit(ctx, nil, func(st *checkpoint.State) { st.AdvanceChain(w.end.stored()) }); err != nil {
		return err
	}
	return co.dropTables(ctx, dropped)
}

// windowEnd waits for the next poll tick and returns the current Doris
// time (a UTC bound from /api/tso) once it has moved past start.
func (ch *chain) windowEnd(ctx context.Context, start bound) (bound, error) {
	co := ch.co
	var bo backoff
	failing := false
	for {
		if wait := time.Until(nextTick(ch.lastTick, co.conf.PollInterval)); wait > 0 {
			if err := doris.Sleep(ctx, wait); err != nil {
				return 0, err
			}
		}
		ch.lastTick = time.Now()
		co.m.refreshLag()
		ts, err := co.clock.currentBound(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			if !failing {
				co.log.Warnf("Reading the current Doris time failed, retrying with backoff: %v", err)
				failing = true
			}
			if err := doris.Sleep(ctx, bo.next()); err != nil {
				return 0, err
			}
			continue
		}
		if failing {
			co.log.Infof("Reading the current Doris time works again")
			failing = false
		}
		// Bounds are UTC, so a daylight-saving change never moves them back;
		// only a real clock fault of the FE does.
		switch {
		case ts < start:
			return 0, fatalf("current Doris timestamp moved backwards from %s to %s: the FE's clock went back",
				co.c.describeBound(start), co.c.describeBound(ts))
		case ts > start:
			return ts, nil
		}
	}
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
