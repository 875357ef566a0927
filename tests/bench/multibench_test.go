package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestMultiTableBench runs only the multi-table and pinned rows, with what
// they are compared against (the single-table backlog d), on a simulator of
// its own: a trial of those rows without the whole suite. `make bench` runs
// the same measurements inside TestBench; this name does not match its
// -run TestBench. BENCH_ONLY=backlog stops after row d and a
// snapshot of the mixed table: the CPU figures of rows a and g alone.
func TestMultiTableBench(t *testing.T) {
	ctx, s := benchSim(t, "the multi-table benchmark rows", 30*time.Minute)
	scanFrom := seedMixedAndBacklog(t, ctx, s)
	var r results
	s.row(t, "binlog backlog", func() error {
		var err error
		r.backlogEvents, r.rawIncr, r.backlog, err = runBacklog(t, ctx, s, scanFrom)
		return err
	})
	if os.Getenv("BENCH_ONLY") == "backlog" {
		snap := runRPConnect(t, ctx, snapshotConfig(s, "mixed"), nil, nil)
		fmt.Printf("\na. snapshot CPU per 1M rows %.2f s\nd. %s, peak RSS %.0f MB\ng. backlog CPU per 1M events %.2f s\n",
			snap.cpu.Seconds()/(float64(snapshotRows)/1e6), fmtRate(r.backlogRate(), "events/s"),
			mb(r.backlog.peakRSS), r.backlog.cpu.Seconds()/(float64(r.backlogEvents)/1e6))
		return
	}
	// As in TestBench: the multi-table data arrives after row d.
	spreadFrom := seedMulti(t, ctx, s)
	m := measureMulti(t, ctx, s, spreadFrom)
	rows := []row{
		info("d. binlog backlog, detail mode", fmt.Sprintf("%s (%d events of %d changes), peak RSS %.0f MB",
			fmtRate(r.backlogRate(), "events/s"), r.backlogEvents, backlogChanges, mb(r.backlog.peakRSS))),
		info("g. CPU per 1M events, backlog (user+sys)", fmt.Sprintf("%.2f s", r.backlog.cpu.Seconds()/(float64(r.backlogEvents)/1e6))),
	}
	fmt.Println()
	fmt.Print(renderTable(append(rows, m.rows(r.single())...)))
}

// seedMixedAndBacklog creates and loads the mixed table of row a and the
// backlog table of row d, and returns the scan_timestamp before the
// backlog's first change.
func seedMixedAndBacklog(t *testing.T, ctx context.Context, s *sim) string {
	t.Helper()
	seedMixed(t, ctx, s, mixedDDL("backlog", true))
	return seedBacklogChanges(t, ctx, s)
}

// seedBacklogChanges makes row d's changes in the backlog table (created
// before) and returns the scan_timestamp before the first of them.
func seedBacklogChanges(t *testing.T, ctx context.Context, s *sim) string {
	t.Helper()
	var scanFrom string
	measure(t, "seed backlog", func() error {
		var err error
		if scanFrom, err = s.now(ctx); err != nil {
			return err
		}
		return s.seedBacklog(ctx, "backlog")
	})
	return scanFrom
}
