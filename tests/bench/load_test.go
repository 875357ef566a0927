package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
)

// loadConfig copies benchDB.src into benchDB.dst: a doris_binlog snapshot
// into doris_load, both on dorissim. The snapshot rows carry no binlog
// positions, so each load gets a random label: this measures Stream Load
// throughput, not label derivation.
func loadConfig(s *sim, src, dst string) string {
	return inputConfig(s, src, "scan_mode: snapshot", "max_parallel_snapshot_splits: 2") +
		fmt.Sprintf("output:\n  doris_load:\n    fenodes: %s\n    username: root\n    password: \"\"\n    table_identifier: %s.%s\n", s.http, benchDB, dst) +
		"http:\n  enabled: false\n" + quietTail
}

// runLoad times the copy of the mixed table through doris_load and checks
// that every row arrived. The copy's table is dropped and made anew first,
// so runLoad can run more than once on one simulator.
func runLoad(t *testing.T, ctx context.Context, s *sim) (procResult, error) {
	t.Helper()
	for _, st := range []string{fmt.Sprintf("DROP TABLE IF EXISTS %s.mixed_copy", benchDB), mixedDDL("mixed_copy", false)} {
		if err := s.exec(ctx, st); err != nil {
			return procResult{}, err
		}
	}
	res := runRPConnect(t, ctx, profiled(t, loadConfig(s, "mixed", "mixed_copy"), "load"), nil, nil)
	copied, _, err := flightPath(ctx, s, fmt.Sprintf("SELECT * FROM `%s`.`mixed_copy`", benchDB))
	if err != nil {
		return res, err
	}
	if copied.rows != snapshotRows {
		return res, fmt.Errorf("doris_load copied %d of %d rows", copied.rows, snapshotRows)
	}
	return res, nil
}

// loadRows are row i: the copy's whole client CPU (the doris_binlog
// snapshot that feeds it and doris_load), doris_load's share of it (that
// less row a, the same snapshot into drop, taken in the same run) and that
// share against row a, the target.
func loadRows(snap, load procResult) []row {
	perM := func(p procResult) float64 { return p.cpu.Seconds() / (float64(snapshotRows) / 1e6) }
	share := perM(load) - perM(snap)
	return []row{
		info(fmt.Sprintf("i. Doris -> Doris through doris_load, %s mixed rows", count(snapshotRows)), fmt.Sprintf("%s, client CPU %.2f s per 1M rows, input included (%.2f s)",
			fmtRate(perSec(snapshotRows, load.wall.Seconds()), "rows/s"), perM(load), load.wall.Seconds())),
		check("i. doris_load's share per 1M rows (i less a) / a", fmt.Sprintf("%.2f s / %.2f s = %.2f", share, perM(snap), ratio(share, perM(snap))), "<= 0.8", ratio(share, perM(snap)) <= 0.8),
	}
}

// TestLoadBench runs only row a and row i, alternating them on one
// simulator for BENCH_ROUNDS rounds (default 2), and prints each round's
// doris_load share against row a: a trial of the doris_load row without the
// whole suite (its name does not match make bench's -run TestBench). With
// BENCH_BASE_BIN set, each round runs that binary too, for a before/after
// of the share in one sitting. BENCH_PPROF=dir saves CPU profiles of both
// runs (snapshot.pprof, load.pprof).
func TestLoadBench(t *testing.T) {
	rounds := benchRounds(2)
	ctx, s := benchSim(t, "the doris_load benchmark rows", 30*time.Minute)
	seedMixed(t, ctx, s)
	bins := []struct{ name, path string }{{"head", os.Getenv("RPCONNECT_DORIS_BIN")}}
	if base := os.Getenv("BENCH_BASE_BIN"); base != "" {
		bins = append([]struct{ name, path string }{{"base", base}}, bins...)
	}
	var rows []row
	for round := range rounds {
		for _, b := range bins {
			if b.path != "" {
				t.Setenv("RPCONNECT_DORIS_BIN", b.path)
			}
			snap := runRPConnect(t, ctx, profiled(t, snapshotConfig(s, "mixed"), "snapshot"), nil, nil)
			var load procResult
			s.row(t, "doris_load copy", func() error {
				var err error
				load, err = runLoad(t, ctx, s)
				return err
			})
			rows = append(rows, info(fmt.Sprintf("round %d, %s", round+1, b.name), ""))
			rows = append(rows, loadRows(snap, load)...)
		}
	}
	fmt.Println()
	fmt.Print(renderTable(rows))
}

// profiled turns on the binary's debug endpoints when BENCH_PPROF names a
// directory, and saves its CPU profile there as name.pprof.
func profiled(t *testing.T, cfg, name string) string {
	dir := os.Getenv("BENCH_PPROF")
	if dir == "" {
		return cfg
	}
	addr := testnet.FreeAddr(t)
	go captureProfile(t, addr, filepath.Join(dir, name+".pprof"))
	return strings.Replace(cfg, "http:\n  enabled: false\n", fmt.Sprintf("http:\n  enabled: true\n  address: %s\n  debug_endpoints: true\n", addr), 1)
}
