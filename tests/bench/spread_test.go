package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSpreadBench measures issue 20's backlog ratios in one sitting: the
// single-table backlog (row d) against the same number of changes spread
// over 10 tables (row m), alternated for BENCH_ROUNDS rounds (default 2),
// with BENCH_BASE_BIN's binary too when set. It seeds only those tables.
// BENCH_PPROF=dir saves each binary's profiles of both rows under dir/head
// and dir/base.
//
//	BENCH=1 BENCH_BASE_BIN=/path/to/old go test -run TestSpreadBench -v ./tests/bench/
func TestSpreadBench(t *testing.T) {
	rounds := benchRounds(2)
	ctx, s := benchSim(t, "the spread backlog comparison", 60*time.Minute)
	for _, st := range []string{"CREATE DATABASE IF NOT EXISTS " + benchDB, mixedDDL("backlog", true)} {
		if err := s.exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	scanFrom := seedBacklogChanges(t, ctx, s)
	spreadFrom := seedSpread(t, ctx, s)
	bins := []struct{ name, path string }{{"head", os.Getenv("RPCONNECT_DORIS_BIN")}}
	if base := os.Getenv("BENCH_BASE_BIN"); base != "" {
		bins = append([]struct{ name, path string }{{"base", base}}, bins...)
	}
	var rows []row
	pprofDir := os.Getenv("BENCH_PPROF")
	for round := range rounds {
		for _, b := range bins {
			t.Setenv("RPCONNECT_DORIS_BIN", b.path)
			if pprofDir != "" {
				// The profiles of each binary's last round, apart.
				dir := filepath.Join(pprofDir, b.name)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				t.Setenv("BENCH_PPROF", dir)
			}
			events, _, one, err := runBacklog(t, ctx, s, scanFrom)
			if err != nil {
				t.Fatalf("round %d, %s: %v", round+1, b.name, err)
			}
			var m multiResult
			if err := m.runSpreadBacklog(t, ctx, s, spreadFrom); err != nil {
				t.Fatalf("round %d, %s: %v", round+1, b.name, err)
			}
			cpu1 := one.cpu.Seconds() / (float64(events) / 1e6)
			cpu10 := m.spread.cpu.Seconds() / (float64(m.spreadEvents) / 1e6)
			rate1 := float64(events) / one.wall.Seconds()
			rate10 := float64(m.spreadEvents) / m.spread.wall.Seconds()
			rows = append(rows,
				info(fmt.Sprintf("round %d %s: CPU per 1M events, 1 / 10 tables", round+1, b.name),
					fmt.Sprintf("%.2f s / %.2f s (%.2f×, target ≤ 1.15)", cpu1, cpu10, cpu10/cpu1)),
				info(fmt.Sprintf("round %d %s: events/s, 1 / 10 tables", round+1, b.name),
					fmt.Sprintf("%s / %s (%.2f×, target ≥ 0.85)", fmtRate(rate1, "events/s"), fmtRate(rate10, "events/s"), rate10/rate1)),
				info(fmt.Sprintf("round %d %s: peak RSS, 1 / 10 tables", round+1, b.name),
					fmt.Sprintf("%.0f MB / %.0f MB (%.2f×, target ≤ 1.3)", mb(one.peakRSS), mb(m.spread.peakRSS),
						float64(m.spread.peakRSS)/float64(one.peakRSS))))
		}
	}
	fmt.Println()
	fmt.Print(renderTable(rows))
}
