package crash

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// orderFigures are what the order checks found over all runs.
type orderFigures struct {
	txns        int // multi-table transactions the writer committed
	checked     int // of them, seen whole in the shared chain of one run
	interleaved int // of those, with snapshot rows of a late table between their events
	problems    []string
}

func (of *orderFigures) problem(format string, args ...any) {
	if len(of.problems) < 20 {
		of.problems = append(of.problems, fmt.Sprintf(format, args...))
	}
}

// chainPos is an event's place in the shared chain's order.
func chainPos(ev harness.Event) checkpoint.Pos {
	return checkpoint.Pos{TSO: ev.TSO, Table: ev.Database + "." + ev.Table, LSN: ev.LSN, Op: int8(ev.Op)}
}

// orderCheck holds each run's output (a kill-free segment) to the order
// the input promises: every table's binlog events in (TSO, LSN, OP) order;
// the shared chain's events, i.e. all binlog events but a late table's
// catch-up, in (TSO, table, LSN, OP) order; and every multi-table
// transaction the writer committed as one contiguous run of chain events
// with one TSO.
type orderCheck struct {
	late       string // the table that joined late; "" for none
	catchUpEnd string // its catch-up windows end at or before this
	txns       []txnRecord
}

func (s *suite) orderCheck() *orderCheck {
	return &orderCheck{late: s.late, catchUpEnd: s.catchUpEnd(s.late), txns: s.w.transactions()}
}

// check runs the order checks over segs; runs numbers them for messages.
func (oc *orderCheck) check(segs [][]harness.Event) orderFigures {
	of := orderFigures{txns: len(oc.txns)}
	for i, seg := range segs {
		run := i + 1
		var chain []int // indices into seg
		last := map[string]harness.Event{}
		for j, ev := range seg {
			if ev.Phase != "binlog" {
				continue
			}
			if prev, ok := last[ev.Table]; ok && !harness.PosLess(prev.Pos(), ev.Pos()) {
				of.problem("run %d line %d: %s event %v (window %s..%s) after %v (window %s..%s): the table's binlog order is broken",
					run, j+1, ev.Table, ev.Pos(), ev.WindowStart, ev.WindowEnd, prev.Pos(), prev.WindowStart, prev.WindowEnd)
			}
			last[ev.Table] = ev
			if ev.Table == oc.late && ev.WindowEnd <= oc.catchUpEnd {
				continue // catch-up: may come after newer events of other tables
			}
			if n := len(chain); n > 0 && !chainPos(seg[chain[n-1]]).Less(chainPos(ev)) {
				prev := seg[chain[n-1]]
				of.problem("run %d line %d: %+v (window %s..%s) after %+v (window %s..%s): the (TSO, table, LSN, OP) order is broken",
					run, j+1, chainPos(ev), ev.WindowStart, ev.WindowEnd, chainPos(prev), prev.WindowStart, prev.WindowEnd)
			}
			chain = append(chain, j)
		}
		oc.checkTransactions(run, seg, chain, &of)
	}
	return of
}

// checkTransactions finds each transaction's insert events among the
// chain events of one segment; when all of them are there, they must share
// one TSO and no event of another TSO may lie between them.
func (oc *orderCheck) checkTransactions(run int, seg []harness.Event, chain []int, of *orderFigures) {
	at := map[string]int{} // "table/id" of a binlog insert -> index into chain
	for ci, j := range chain {
		if ev := seg[j]; ev.Operation == "insert" {
			at[fmt.Sprintf("%s/%v", ev.Table, ev.Row["id"])] = ci
		}
	}
	for _, tx := range oc.txns {
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
		for ci := first; ci <= lastIdx; ci++ {
			if ev := seg[chain[ci]]; ev.TSO != tso {
				of.problem("run %d: the transaction that inserted %v is not one run of TSO %d: line %d has TSO %d (%s)",
					run, tx.keys, tso, chain[ci]+1, ev.TSO, ev.Table)
				break
			}
		}
		for j := chain[first]; j <= chain[lastIdx]; j++ {
			if seg[j].Phase != "binlog" {
				of.interleaved++
				break
			}
		}
	}
}

// checkOrder reports what the order checks find, and proves that they can
// fail: moving one event of a transaction that was seen whole behind the
// next other TSO must be reported.
func (s *suite) checkOrder(t *testing.T) orderFigures {
	t.Helper()
	oc := s.orderCheck()
	of := oc.check(s.segs)
	for _, p := range of.problems {
		t.Error(p)
	}
	if of.checked == 0 {
		t.Errorf("none of the %d multi-table transactions was seen whole in the shared chain; the order check checked nothing", of.txns)
		return of
	}
	for i, seg := range s.segs {
		if cut, ok := splitTransaction(seg); ok {
			segs := slices.Clone(s.segs)
			segs[i] = cut
			if bad := oc.check(segs); len(bad.problems) == 0 {
				t.Errorf("order self-check: a transaction split in run %d's output was not reported", i+1)
			}
			return of
		}
	}
	t.Errorf("order self-check: no run's output holds two binlog events of one TSO followed by another TSO")
	return of
}

// splitTransaction returns a copy of seg in which the first binlog event
// of a TSO shared by two consecutive binlog events is moved behind the next
// binlog event of a later TSO.
func splitTransaction(seg []harness.Event) ([]harness.Event, bool) {
	var bin []int
	for j, ev := range seg {
		if ev.Phase == "binlog" {
			bin = append(bin, j)
		}
	}
	for k := 0; k+2 < len(bin); k++ {
		a, b, c := seg[bin[k]], seg[bin[k+1]], seg[bin[k+2]]
		if a.TSO == b.TSO && c.TSO > b.TSO && a.Table != b.Table {
			cut := slices.Clone(seg)
			cut[bin[k]], cut[bin[k+1]], cut[bin[k+2]] = b, c, a
			return cut, true
		}
	}
	return nil, false
}
