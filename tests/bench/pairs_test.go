package bench

import (
	"context"
	"fmt"
	"testing"
)

// pairRounds is how many alternating rounds measurePairs runs.
const pairRounds = 3

// pairedRatios are issue 20's ratios measured in pairs at the end of the
// run. Rows a and d run minutes before the multi-table rows, and on a
// shared machine the CPU a row costs drifts by up to 1.7× over that time
// (the same 1-table backlog took 2.5 to 4.3 s per 1M events in one
// sitting); the narrow snapshots' peak RSS, which lands wherever a
// collection does, went 1.01 to 1.17 between four runs of one binary. Each
// round here runs the single-table row and its counterpart back to back,
// in alternating order, so drift between rounds cancels out of each ratio;
// the medians are what the targets are checked against.
type pairedRatios struct {
	cpu, rate, rss []float64 // 10-table backlog / row d
	snap, snapRead []float64 // row m's snapshot / row a, and from the first rows
	snapNoWait     []float64 // row m's tables in scan_mode snapshot / row a
	narrow         []float64 // peak RSS of the 5M / the 1M narrow snapshot (row f)
}

// measurePairs runs pairRounds rounds of (row d, 10-table backlog), (row
// a, row m's snapshot) and (5M, 1M narrow snapshots), alternating which of
// each pair goes first, and then row m's tables in scan_mode snapshot: the
// same reads without initial mode's wait for the next whole Doris second,
// which is what separates the cost of many tables from that wait.
func measurePairs(t *testing.T, ctx context.Context, s *sim, scanFrom, spreadFrom string) pairedRatios {
	t.Helper()
	var p pairedRatios
	for round := range pairRounds {
		var (
			d, spread             procResult
			dEvents, spreadEvents int64
			a, m, mSnap           procResult
			n5, n1                procResult
		)
		backlog := func() error {
			var err error
			dEvents, _, d, err = runBacklog(t, ctx, s, scanFrom)
			return err
		}
		spreadRow := func() error {
			var err error
			spreadEvents, spread, err = runSpread(t, ctx, s, spreadFrom, "")
			return err
		}
		single := func() error { a = runSnapshotA(t, ctx, s, ""); return nil }
		many := func() error {
			var err error
			m, err = runManySnapshot(t, ctx, s, manyAtOnce, "")
			return err
		}
		manyNoWait := func() error {
			var err error
			mSnap, err = runManySnapshotIn(t, ctx, s, "snapshot", manyAtOnce, "")
			return err
		}
		narrow := func(table string, res *procResult) func() error {
			return func() error { *res = runRPConnect(t, ctx, snapshotConfig(s, table), nil, nil); return nil }
		}
		steps := []struct {
			name string
			fn   func() error
		}{{"binlog backlog", backlog}, {fmt.Sprintf("binlog backlog over %d tables", spreadTables), spreadRow},
			{"doris_binlog snapshot 1M mixed", single}, {fmt.Sprintf("initial snapshot of %d tables", manyTables), many},
			{"doris_binlog snapshot 5M narrow", narrow("narrow5m", &n5)}, {"doris_binlog snapshot 1M narrow", narrow("narrow1m", &n1)},
			{fmt.Sprintf("snapshot of %d tables, scan_mode snapshot", manyTables), manyNoWait}}
		if round%2 == 1 {
			for i := 0; i+1 < len(steps); i += 2 {
				steps[i], steps[i+1] = steps[i+1], steps[i]
			}
		}
		for _, st := range steps {
			s.row(t, fmt.Sprintf("pair %d: %s", round+1, st.name), st.fn)
		}
		p.add(d, spread, dEvents, spreadEvents, a, m)
		p.snapNoWait = append(p.snapNoWait, ratio(perSec(manyTables*manyTableRows, mSnap.wall.Seconds()), perSec(snapshotRows, a.wall.Seconds())))
		p.narrow = append(p.narrow, ratio(float64(n5.peakRSS), float64(n1.peakRSS)))
		t.Logf("pair %d: backlog CPU/event %.2f×, events/s %.2f×, RSS %.2f×; snapshot m/a %.2f, from the first rows %.2f, in scan_mode snapshot %.2f (first row at %.2f s against %.2f s); narrow RSS 5M/1M %.2f",
			round+1, p.cpu[round], p.rate[round], p.rss[round], p.snap[round], p.snapRead[round], p.snapNoWait[round],
			mSnap.firstRow.Seconds(), m.firstRow.Seconds(), p.narrow[round])
	}
	return p
}

func (p *pairedRatios) add(d, spread procResult, dEvents, spreadEvents int64, a, m procResult) {
	cpuPerEvent := func(r procResult, n int64) float64 {
		if n == 0 {
			return 0
		}
		return r.cpu.Seconds() / float64(n)
	}
	manyRows := manyTables * manyTableRows
	p.cpu = append(p.cpu, ratio(cpuPerEvent(spread, spreadEvents), cpuPerEvent(d, dEvents)))
	p.rate = append(p.rate, ratio(perSec(spreadEvents, spread.wall.Seconds()), perSec(dEvents, d.wall.Seconds())))
	p.rss = append(p.rss, ratio(float64(spread.peakRSS), float64(d.peakRSS)))
	p.snap = append(p.snap, ratio(perSec(manyRows, m.wall.Seconds()), perSec(snapshotRows, a.wall.Seconds())))
	p.snapRead = append(p.snapRead, ratio(fromFirstRow(m, manyRows), fromFirstRow(a, snapshotRows)))
}

// rows are the checked lines: each median, with the rounds in brackets.
func (p pairedRatios) rows() []row {
	if len(p.cpu) == 0 {
		return nil
	}
	n := len(p.cpu)
	return []row{
		info(fmt.Sprintf("q. paired rows, %d alternating rounds at the end of the run", n), "median (each round)"),
		check(fmt.Sprintf("   CPU per event, %d-table backlog / d", spreadTables), fmtRatios(p.cpu), "<= 1.15", median(p.cpu) <= 1.15),
		check(fmt.Sprintf("   events/s, %d-table backlog / d", spreadTables), fmtRatios(p.rate), ">= 0.85", median(p.rate) >= 0.85),
		check(fmt.Sprintf("   peak RSS, %d-table backlog / d", spreadTables), fmtRatios(p.rss), "<= 1.3", median(p.rss) <= 1.3),
		check(fmt.Sprintf("   rows/s, %d-table initial snapshot (m) / a", manyTables), fmtRatios(p.snap), ">= 0.8", median(p.snap) >= 0.8),
		info("   the same from each run's first row to its last", fmtRatios(p.snapRead)),
		info("   the same tables in scan_mode snapshot (no wait for the next Doris second) / a", fmtRatios(p.snapNoWait)),
		check(fmt.Sprintf("   peak RSS, %s / %s narrow snapshot", count(narrowBig), count(narrowSmall)), fmtRatios(p.narrow),
			"<= 1.15", median(p.narrow) <= 1.15),
	}
}
