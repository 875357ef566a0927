package input

import (
	"context"
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

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
func (ch *chain) planEnd(ctx context.Context, end windowplan.Bound) error {
	co := ch.co
	co.planned.Add(end)
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
	w, open, err := windowplan.WindowOf("binlog stream window", &cur)
	if err != nil {
		return err
	}
	var now *windowplan.Bound // the Doris time the window end came from
	if open {
		if end, ok := co.planned.Next(w.Start); ok {
			w.End = end // chosen before a restart: the same window again
		} else {
			ts, err := ch.windowEnd(ctx, w.Start)
			if err != nil {
				return err
			}
			w.End, now = ts, &ts
			if err := ch.planEnd(ctx, w.End); err != nil {
				return err
			}
		}
	}
	tables, err := ch.windowTables(ctx, w, now)
	if err != nil {
		return err
	}
	tables = co.withSignal(tables)
	began := time.Now()
	var dropped []string
	if len(tables) > 0 {
		dropped, err = co.wr.read(ctx, tables, w, now, cur.Last, false, func(st *checkpoint.State, last checkpoint.Pos) {
			st.ChainProgress(w.Start.Stored(), w.End.Stored(), last)
		})
		if err != nil {
			return err
		}
	}
	co.m.window.Timing(time.Since(began).Nanoseconds())
	if dropped, err = co.signalDropped(dropped); err != nil {
		return err
	}
	co.stopSignalled()
	var signalled []checkpoint.SignalResult
	if err := co.em.emit(ctx, nil, func(st *checkpoint.State) {
		st.AdvanceChain(w.End.Stored())
		signalled = st.ApplySignals(w.End.Stored())
	}); err != nil {
		return err
	}
	co.applySignals(ctx, w.End.Stored(), signalled)
	return co.dropTables(ctx, dropped)
}

// windowEnd waits for the next poll tick and returns the current Doris
// time (a UTC bound from /api/tso) once it has moved past start.
func (ch *chain) windowEnd(ctx context.Context, start windowplan.Bound) (windowplan.Bound, error) {
	co := ch.co
	var bo windowplan.Backoff
	failing := false
	for {
		if wait := time.Until(windowplan.NextTick(ch.lastTick, co.conf.PollInterval)); wait > 0 {
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
			if err := doris.Sleep(ctx, bo.Next()); err != nil {
				return 0, err
			}
			continue
		}
		if failing {
			co.log.Infof("Reading the current Doris time works again")
			failing = false
		}
		end, ok, err := windowplan.End(start, ts)
		if err != nil { // the clock went back: logs name both zones
			return 0, fatalf("current Doris timestamp moved backwards from %s to %s: the FE's clock went back",
				co.c.describeBound(start), co.c.describeBound(ts))
		}
		if ok {
			return end, nil
		}
	}
}
