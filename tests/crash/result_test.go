package crash

import (
	"slices"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// verify checks every table ever followed and the final checkpoint, and
// returns the summed figures with the input's duplicate bound.
func (s *suite) verify() figures {
	s.t.Helper()
	all := byTable(s.allEvents(nil))
	for tbl := range all {
		if s.loads[tbl] == nil {
			s.t.Errorf("%d events of %s, which the selection does not hold", len(all[tbl]), tbl)
		}
	}
	var sum figures
	for _, tbl := range s.order {
		c := s.tableCheck(tbl, all[tbl])
		f := c.verify(s.t)
		state := "live"
		if s.gone[tbl] != nil {
			state = "dropped"
		}
		s.t.Logf("%s (%s): events=%d lost=%d duplicates=%d (binlog %d, snapshot %d) binlog_start=%q snapshot rows per run %v",
			qualified(tbl), state, f.events, f.lost, f.duplicates(), f.dupBinlog, f.dupSnap, c.binlogStart(), s.snapshotRowsPerRun(tbl))
		sum.add(f)
	}
	s.checkRunDuplicates()
	sum.bound = s.bound()
	if sum.duplicates() > sum.bound {
		s.t.Errorf("%d duplicates (%d binlog, %d snapshot) exceed the bound %d over %d kills",
			sum.duplicates(), sum.dupBinlog, sum.dupSnap, sum.bound, len(s.kills))
	}
	st := s.pc.state()
	for _, tbl := range s.order {
		switch phase := phaseOf(st, tbl); {
		case s.gone[tbl] != nil && phase != phaseNone:
			s.t.Errorf("dropped table %s is still in the final checkpoint (%s)", qualified(tbl), phase)
		case s.gone[tbl] == nil && phase != checkpoint.PhaseBinlog:
			s.t.Errorf("table %s is %s in the final checkpoint, want %s", qualified(tbl), phase, checkpoint.PhaseBinlog)
		}
	}
	return sum
}

// bound is the most duplicates the delivery guarantees allow over all
// kills. Per kill: the output may have written up to checkpoint_limit
// messages that were not yet acked, one limit for the whole input however
// many tables it follows (the source re-sends nothing acked). Tables still
// in their snapshot also re-read every split that was in progress: at most
// max_parallel_snapshot_tables of them are read at once, each with at most
// max_parallel_snapshot_splits splits of request_tablet_size 1, i.e. that
// many tablets (snapshot_query_rows 0 keeps every query to one split). A tablet never holds more rows than the keys ever inserted
// into it, which is at most its live rows at the end plus every deleted key
// (the workload never reuses a key).
func (s *suite) bound() int {
	s.t.Helper()
	rows := map[string]int{}
	total := 0
	for _, k := range s.kills {
		total += s.pc.checkpointLimit
		var per []int
		for _, tbl := range k.snapshotting {
			if _, ok := rows[tbl]; !ok {
				rows[tbl] = s.tableCheck(tbl, nil).maxTabletRowsEver(s.t)
			}
			per = append(per, s.pc.parallelSplits*rows[tbl])
		}
		slices.SortFunc(per, func(a, b int) int { return b - a })
		for _, n := range per[:min(len(per), s.pc.parallelTables)] {
			total += n
		}
	}
	return total
}

// checkOracle proves that the position check can fail: with one binlog line
// taken out of the first table's output, it must report that position lost.
func (s *suite) checkOracle() {
	s.t.Helper()
	tbl := s.order[0]
	evs := byTable(s.allEvents(nil))[tbl]
	count := map[[3]int64]int{}
	for _, ev := range evs {
		if ev.Phase == "binlog" {
			count[ev.Pos()]++
		}
	}
	for i, ev := range evs {
		if ev.Phase != "binlog" || count[ev.Pos()] != 1 {
			continue
		}
		s.t.Logf("oracle self-check: taking binlog position %v out of %s's output", ev.Pos(), tbl)
		cut := append(append([]harness.Event(nil), evs[:i]...), evs[i+1:]...)
		if lost, _ := s.tableCheck(tbl, cut).positions(s.t); lost != 1 {
			s.t.Errorf("the oracle found %d lost positions with %v taken out, want 1", lost, ev.Pos())
		}
		return
	}
	s.t.Errorf("no binlog position of %s was delivered exactly once; the oracle check has nothing to take out", tbl)
}

// lastWindowEnd is the latest window end of any delivered binlog event.
func (s *suite) lastWindowEnd() string {
	end := ""
	for _, seg := range s.segs {
		for _, ev := range seg {
			if ev.Phase == "binlog" {
				end = max(end, ev.WindowEnd)
			}
		}
	}
	return end
}

// snapshotRowsPerRun counts table's snapshot rows in each run's output, to
// tell where snapshot duplicates came from.
func (s *suite) snapshotRowsPerRun(table string) []int {
	out := make([]int, len(s.segs))
	for i, seg := range s.segs {
		for _, ev := range seg {
			if ev.Table == table && ev.Phase != "binlog" {
				out[i]++
			}
		}
	}
	return out
}

// checkRunDuplicates fails the test when one run delivered a binlog
// position or a snapshot key of a table twice: without a kill (or a
// nack, which the file output never sends) in between, nothing may come
// twice, save the rows of a snapshot split that failed and was read again.
func (s *suite) checkRunDuplicates() {
	s.t.Helper()
	for i, seg := range s.segs {
		for tbl, evs := range byTable(seg) {
			bin, snap := harness.DuplicatePositions(evs), snapshotDuplicates(evs)
			if snap > 0 && s.runs[i].splitRetried(tbl) {
				// A failed split is read again from its start (see the log).
				s.t.Logf("run %d re-read a failed snapshot split of %s: %d snapshot rows came twice", i+1, tbl, snap)
				snap = 0
			}
			if bin+snap > 0 {
				s.t.Errorf("run %d delivered %d binlog positions and %d snapshot rows of %s twice, with no kill in between",
					i+1, bin, snap, tbl)
			}
		}
	}
}
