package crash

import (
	"slices"
	"strings"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// droppedTable is what the suite took of a table just before dropping it,
// since Doris serves neither its rows nor its binlog afterwards.
type droppedTable struct {
	start, end string                 // the binlog range whose positions were taken
	positions  map[[3]int64]bool      // Doris's binlog positions in [start, end)
	state      map[string]harness.Row // its content
	tabletRows int                    // maxTabletRowsEver
}

// dropTable takes tbl out of the workload, waits (bounded) until the
// stored chain has moved past the moment its last change committed, takes
// its content and binlog, drops it and waits until the input has removed
// it from the checkpoint. Every change of it is then delivered before the
// drop, which is what the verification holds the output to.
func (s *suite) dropTable(r *run, tbl string) {
	s.t.Helper()
	s.w.retire(tbl)
	after := harness.Now(s.t, s.srv)
	st := s.waitStored(r, 60*time.Second, "the chain past "+after, func(st *checkpoint.State) bool {
		return st.Stream != nil && st.Stream.Start.String() > after && phaseOf(st, tbl) == checkpoint.PhaseBinlog
	})
	c := s.tableCheck(tbl, byTable(s.allEvents(r))[tbl])
	d := &droppedTable{start: c.binlogStart(), end: st.Stream.Start.String(),
		state: harness.TableState(s.t, s.srv, db, tbl, "id", columns...), tabletRows: c.maxTabletRowsEver(s.t)}
	d.positions = expectedPositions(s.t, s.srv, db, tbl, d.start, d.end)
	harness.Exec(s.t, s.srv, "DROP TABLE `"+db+"`.`"+tbl+"`")
	s.gone[tbl] = d
	s.live = slices.DeleteFunc(s.live, func(x string) bool { return x == tbl })
	s.waitStored(r, 30*time.Second, tbl+" gone from the checkpoint", func(st *checkpoint.State) bool { return phaseOf(st, tbl) == phaseNone })
	warn := "Table " + qualified(tbl) + " was dropped"
	if n := strings.Count(r.log(), warn); n != 1 {
		s.t.Errorf("run %d logged %q %d times after the drop, want once", r.no, warn, n)
	}
	s.t.Logf("run %d: dropped %s.%s after its binlog up to %s (%d positions); the checkpoint no longer holds it", r.no, db, tbl, d.end, len(d.positions))
}
