package input

import (
	"context"
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// catchUp reads, for each table whose snapshot finished after the chain
// had moved on, its own binlog from its start to the chain's start, and
// then lets it join the chain. A table whose start the chain has not
// reached yet waits.
func (co *coordinator) catchUp(ctx context.Context) error {
	for _, t := range co.phaseTables(checkpoint.PhaseCatchUp) {
		key := t.name.key
		var chainText string
		var own checkpoint.Window
		co.em.view(func(st *checkpoint.State) {
			chainText, own = st.Stream.Start, *st.Tables[key].CatchUp.Clone()
		})
		chainStart, err := parseBound(chainText)
		if err != nil {
			return fmt.Errorf("binlog stream start: %w", err)
		}
		w, open, err := windowOf("catch-up window of "+key, &own)
		if err != nil {
			return err
		}
		if w.start > chainStart {
			continue
		}
		if open {
			w.end = chainStart
		}
		co.log.Infof("Table %s catches up on its binlog [%s, %s) before joining the shared windows", key, w.start, w.end)
		dropped, err := co.wr.read(ctx, []*tableInfo{t}, w, nil, own.Last, func(st *checkpoint.State, last checkpoint.Pos) {
			st.CatchUpProgress(key, w.start.String(), w.end.String(), last)
		})
		if err != nil {
			return err
		}
		if len(dropped) > 0 {
			if err := co.dropTables(ctx, dropped); err != nil {
				return err
			}
			continue
		}
		// When the chain moved on meanwhile, the rest is caught up next.
		if err := co.em.emit(ctx, nil, func(st *checkpoint.State) { st.FinishCatchUp(key, w.end.String()) }); err != nil {
			return err
		}
		co.log.Infof("Table %s caught up to %s", key, w.end)
		co.refreshTableGauges()
	}
	return nil
}
