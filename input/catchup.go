package input

import (
	"context"
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// catchUp reads, for each table whose snapshot finished (or that was found)
// after the chain had moved on, its own binlog from its start to the
// chain's start, and then lets it join the chain. A table whose start the
// chain has not reached yet waits. Tables with the same catch-up window
// and progress (those found by one discovery, say) are read together as
// one merged window, so a thousand new tables join in one read, not in a
// thousand.
func (co *coordinator) catchUp(ctx context.Context) error {
	groups, err := co.catchUpGroups()
	if err != nil {
		return err
	}
	for _, g := range groups {
		if err := co.catchUpGroup(ctx, g); err != nil {
			return err
		}
	}
	return nil
}

// catchUpSet is tables that catch up on one window from one position.
type catchUpSet struct {
	tables []*tableInfo
	w      window
	last   *checkpoint.Pos // the last row delivered of w, nil for none
}

// catchUpGroups gives the tables ready to catch up, grouped by window and
// progress, in the order of their first table's name.
func (co *coordinator) catchUpGroups() ([]*catchUpSet, error) {
	var groups []*catchUpSet
	index := map[string]*catchUpSet{}
	for _, t := range co.phaseTables(checkpoint.PhaseCatchUp) {
		key := t.name.key
		var chainText string
		var own checkpoint.Window
		co.em.view(func(st *checkpoint.State) {
			chainText, own = st.Stream.Start, *st.Tables[key].CatchUp.Clone()
		})
		chainStart, err := parseBound(chainText)
		if err != nil {
			return nil, fmt.Errorf("binlog stream start: %w", err)
		}
		w, open, err := windowOf("catch-up window of "+key, &own)
		if err != nil {
			return nil, err
		}
		if w.start > chainStart {
			continue
		}
		if open {
			w.end = chainStart
		}
		id := fmt.Sprintf("%d-%d", w.start, w.end)
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

// catchUpGroup reads g's window of its tables merged in commit order, as a
// chain window is read; each batch records its last row as the progress of
// every table of g, which is what a restart skips to, since the rows of
// all of them up to it were delivered. The tables then join the chain, or
// catch up the rest when the chain moved on meanwhile.
func (co *coordinator) catchUpGroup(ctx context.Context, g *catchUpSet) error {
	w := g.w
	for _, t := range g.tables {
		co.log.Infof("Table %s catches up on its binlog [%s, %s) before joining the shared windows", t.name.key, w.start, w.end)
	}
	dropped, err := co.wr.read(ctx, g.tables, w, nil, g.last, func(st *checkpoint.State, last checkpoint.Pos) {
		for _, t := range g.tables {
			st.CatchUpProgress(t.name.key, w.start.String(), w.end.String(), last)
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
	err = co.em.emit(ctx, nil, func(st *checkpoint.State) {
		for _, key := range done {
			st.FinishCatchUp(key, w.end.String())
		}
	})
	if err != nil {
		return err
	}
	for _, key := range done {
		co.log.Infof("Table %s caught up to %s", key, w.end)
	}
	co.refreshTableGauges()
	return nil
}
