package input

import (
	"context"
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// catchUpSet is tables that catch up on one window from one position.
type catchUpSet struct {
	tables []*tableInfo
	w      windowplan.Window
	last   *checkpoint.Pos // the last row delivered of w, nil for none
}

// catchUpGroups groups the tables in their catch-up phase that are ready
// to catch up by window and progress, in the order of their first table.
func catchUpGroups(em *emitter, tables []*tableInfo) ([]*catchUpSet, error) {
	var groups []*catchUpSet
	index := map[string]*catchUpSet{}
	for _, t := range tables {
		key := t.name.key
		var chainStart checkpoint.Bound
		var own checkpoint.Window
		var due bool
		em.view(func(st *checkpoint.State) {
			chainStart = st.Stream.Start
			own, due = st.CatchUpWindow(key)
		})
		if chainStart.IsZero() {
			return nil, fmt.Errorf("binlog stream start is not set")
		}
		if own.Start.IsZero() {
			continue // no longer catching up
		}
		w, _, err := windowplan.WindowOf("catch-up window of "+key, &own)
		if err != nil {
			return nil, err
		}
		if !due {
			continue
		}
		id := fmt.Sprintf("%d-%d", w.Start, w.End)
		if own.Last != nil {
			id += fmt.Sprintf("@%+v", *own.Last)
		}
		g := index[id]
		if g == nil {
			g = &catchUpSet{w: w, last: own.Last}
			index[id] = g
			groups = append(groups, g)
		}
		g.tables = append(g.tables, t)
	}
	return groups, nil
}

// read reads g's window of its tables merged in commit order, as a
// chain window is read; each batch records its last row as the progress of
// every table of g, which is what a restart skips to, since the rows of
// all of them up to it were delivered. The tables then join the chain, or
// catch up the rest when the chain moved on meanwhile.
func (g *catchUpSet) read(ctx context.Context, co *coordinator) error {
	w := g.w
	// Debug: tables joining late catch up one or a few at a time, as their
	// snapshots finish; their round sums them up at info level.
	for _, t := range g.tables {
		co.log.Debugf("Table %s catches up on its binlog [%s, %s) before joining the shared windows", t.name.key, w.Start, w.End)
	}
	dropped, err := co.wr.read(ctx, g.tables, w, nil, g.last, true, func(st *checkpoint.State, last checkpoint.Pos) {
		for _, t := range g.tables {
			st.CatchUpProgress(t.name.key, w.Start.Stored(), w.End.Stored(), last)
		}
	})
	if err != nil {
		return err
	}
	if len(dropped) > 0 {
		if err := co.dropTables(ctx, dropped); err != nil {
			return err
		}
	}
	gone := map[string]bool{}
	for _, key := range dropped {
		gone[key] = true
	}
	var done []string
	for _, t := range g.tables {
		if !gone[t.name.key] {
			done = append(done, t.name.key)
		}
	}
	if len(done) == 0 {
		return nil
	}
	// When the chain moved on meanwhile, the rest is caught up next.
	joined := make([]bool, len(done))
	err = co.em.emit(ctx, nil, func(st *checkpoint.State) {
		for i, key := range done {
			joined[i] = st.FinishCatchUp(key, w.End.Stored())
		}
	})
	if err != nil {
		return err
	}
	for i, key := range done {
		co.log.Debugf("Table %s caught up to %s", key, w.End)
		if joined[i] {
			co.joinedRound(key)
		}
	}
	co.refreshTableGauges()
	return nil
}
