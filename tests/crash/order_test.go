package crash

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// orderFigures are what the order checks found over all runs.
type orderFigures struct {
	txns        int // multi-table transactions the writer committed
	checked     int // of them, seen whole in the shared chain of one run
	interleaved int // of those, with snapshot rows of a late table between their events
}

// chainPos is an event's place in the shared chain's order.
func chainPos(ev harness.Event) checkpoint.Pos {
	return checkpoint.Pos{TSO: ev.TSO, Table: ev.Database + "." + ev.Table, LSN: ev.LSN, Op: int8(ev.Op)}
}

// checkOrder holds each run's output (a kill-free segment) to the order
// the input promises: every table's binlog events in (TSO, LSN, OP) order;
// the shared chain's events, i.e. all binlog events but a late table's
// catch-up, in (TSO, table, LSN, OP) order; and every multi-table
// transaction the writer committed as one contiguous run of chain events
// with one TSO.
func (s *suite) checkOrder(t *testing.T, txns []txnRecord) orderFigures {
	t.Helper()
	of := orderFigures{txns: len(txns)}
	catchUpEnd := s.catchUpEnd(s.late)
	for i, seg := range s.segs {
		run := s.runs[i].no
		var chain []int // indices into seg
		last := map[string]harness.Event{}
		for j, ev := range seg {
			if ev.Phase != "binlog" {
				continue
			}
			if prev, ok := last[ev.Table]; ok && !less3(prev.Pos(), ev.Pos()) {
				t.Errorf("run %d line %d: %s event %v (window %s..%s) after %v (window %s..%s): the table's binlog order is broken",
					run, j+1, ev.Table, ev.Pos(), ev.WindowStart, ev.WindowEnd, prev.Pos(), prev.WindowStart, prev.WindowEnd)
			}
			last[ev.Table] = ev
			if ev.Table == s.late && ev.WindowEnd <= catchUpEnd {
				continue // catch-up: may come after newer events of other tables
			}
			if n := len(chain); n > 0 && !chainPos(seg[chain[n-1]]).Less(chainPos(ev)) {
				prev := seg[chain[n-1]]
				t.Errorf("run %d line %d: %+v (window %s..%s) after %+v (window %s..%s): the (TSO, table, LSN, OP) order is broken",
					run, j+1, chainPos(ev), ev.WindowStart, ev.WindowEnd, chainPos(prev), prev.WindowStart, prev.WindowEnd)
			}
			chain = append(chain, j)
		}
		s.checkTransactions(t, run, seg, chain, txns, &of)
	}
	return of
}

// checkTransactions finds each transaction's insert events among the
// chain events of one segment; when all of them are there, they must share
// one TSO and no event of another TSO may lie between them.
func (s *suite) checkTransactions(t *testing.T, run int, seg []harness.Event, chain []int, txns []txnRecord, of *orderFigures) {
	t.Helper()
	at := map[string]int{} // "table/id" of a binlog insert -> index into chain
	for ci, j := range chain {
		if ev := seg[j]; ev.Operation == "insert" {
			at[fmt.Sprintf("%s/%v", ev.Table, ev.Row["id"])] = ci
		}
	}
	for _, tx := range txns {
		first, lastIdx, found := len(chain), -1, 0
		for tbl, id := range tx.keys {
			if ci, ok := at[fmt.Sprintf("%s/%d", tbl, id)]; ok {
				found++
				first, lastIdx = min(first, ci), max(lastIdx, ci)
			}
		}
		if found < len(tx.keys) {
			// Not whole in this segment: before the stream start, in a
			// catch-up, or cut by a kill or a resume.
			continue
		}
		of.checked++
		tso := seg[chain[first]].TSO
		var tables []string
		for ci := first; ci <= lastIdx; ci++ {
			ev := seg[chain[ci]]
			if ev.TSO != tso {
				t.Errorf("run %d: the transaction that inserted %v is not one run of TSO %d: line %d has TSO %d (%s)",
					run, tx.keys, tso, chain[ci]+1, ev.TSO, ev.Table)
				break
			}
			tables = append(tables, ev.Table)
		}
		for j := chain[first]; j <= chain[lastIdx]; j++ {
			if seg[j].Phase != "binlog" {
				of.interleaved++
				s.t.Logf("run %d: snapshot rows of %s between the events of the transaction at TSO %d (%s)", run, seg[j].Table, tso, strings.Join(tables, ","))
				break
			}
		}
	}
}

func less3(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
