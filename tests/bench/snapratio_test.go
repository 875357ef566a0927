package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
)

// TestSnapshotRatioBench measures only the snapshot ratios of issue 20, in
// one sitting, alternating for BENCH_ROUNDS rounds (default 3): row m (the
// 100-table initial snapshot) against row a (the 1M-row mixed snapshot), and
// with BENCH_NARROW=1 also row f (peak RSS of the 5M- against the 1M-row
// narrow snapshot). Absolute figures drift on a shared machine; the ratios
// within a round do not. BENCH_PPROF=dir saves a CPU profile of each row's
// first round (BENCH_PERF_SIM=1 also records dorissim with perf);
// BENCH_MANY_AT_ONCE lists row m's max_parallel_snapshot_tables values, each
// measured every round (0: the input's default), BENCH_MANY_SPLITS its
// max_parallel_snapshot_splits (default 2) and BENCH_MANY_TABLET_SIZE its
// request_tablet_size (default: the input's), BENCH_MANY_MODE its
// scan_mode (default initial; snapshot has no wait for the next whole Doris
// second); BENCH_MANY_LOG=1 logs row m's run at DEBUG level and reports when
// its first table starts (BENCH_MANY_LOG_ALL=1 prints every line);
// BENCH_GCTRACE=1 traces the collections of the narrow runs.
func TestSnapshotRatioBench(t *testing.T) {
	if os.Getenv("BENCH") != "1" {
		t.Skip("set BENCH=1 to run the snapshot ratio rows")
	}
	applyScale(t)
	rounds := 3
	if v, err := strconv.Atoi(os.Getenv("BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	atOnce := []int{manyAtOnce}
	if v := os.Getenv("BENCH_MANY_AT_ONCE"); v != "" {
		atOnce = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 {
				t.Fatalf("BENCH_MANY_AT_ONCE=%q: want numbers >= 0, comma-separated", v)
			}
			atOnce = append(atOnce, n)
		}
	}
	narrow := os.Getenv("BENCH_NARROW") == "1"
	manyMode := "initial"
	if v := os.Getenv("BENCH_MANY_MODE"); v != "" {
		manyMode = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	s := startSim(t)
	seedRatioTables(t, ctx, s, narrow)
	pprof := os.Getenv("BENCH_PPROF")
	// With BENCH_BASE_BIN, row m also runs that binary, right after this
	// tree's, every round; row a always runs this tree's.
	headBin := os.Getenv("RPCONNECT_DORIS_BIN")
	bins := []struct{ name, path string }{{"", headBin}}
	if base := os.Getenv("BENCH_BASE_BIN"); base != "" {
		bins = append(bins, struct{ name, path string }{"-base", base})
	}
	mRatio := map[string][][]float64{}
	mRead := map[string][][]float64{} // the same from each run's first row
	for _, b := range bins {
		mRatio[b.name] = make([][]float64, len(atOnce))
		mRead[b.name] = make([][]float64, len(atOnce))
	}
	var fRatio []float64
	for round := range rounds {
		prof := func(name string) string {
			if pprof == "" || round > 0 {
				return ""
			}
			return filepath.Join(pprof, name+".pprof")
		}
		s.collect(t)
		sim0 := s.cpu(t)
		stopPerf := perfSim(t, s, prof("a.sim"))
		a := runSnapshotA(t, ctx, s, prof("a"))
		stopPerf()
		simA := s.cpu(t) - sim0
		rateA := perSec(snapshotRows, a.wall.Seconds())
		t.Logf("round %d: a %s (%.2f s, first row at %.2f s, cpu %.2f s, dorissim %.2f s)", round+1, fmtRate(rateA, "rows/s"),
			a.wall.Seconds(), a.firstRow.Seconds(), a.cpu.Seconds(), simA.Seconds())
		for i, n := range atOnce {
			for _, b := range bins {
				t.Setenv("RPCONNECT_DORIS_BIN", b.path)
				s.collect(t)
				sim0 = s.cpu(t)
				name := fmt.Sprintf("m%d%s", n, b.name)
				stopPerf = perfSim(t, s, prof(name+".sim"))
				m, err := runManySnapshotIn(t, ctx, s, manyMode, n, prof(name))
				stopPerf()
				if err != nil {
					t.Fatal(err)
				}
				simM := s.cpu(t) - sim0
				rateM := perSec(manyTables*manyTableRows, m.wall.Seconds())
				read := ratio(fromFirstRow(m, manyTables*manyTableRows), fromFirstRow(a, snapshotRows))
				mRatio[b.name][i] = append(mRatio[b.name][i], rateM/rateA)
				mRead[b.name][i] = append(mRead[b.name][i], read)
				t.Logf("round %d: m%s, %d at once: %s (%.2f s, first row at %.2f s, cpu %.2f s, dorissim %.2f s, peak RSS %.0f MB); m/a %.2f, from the first rows %.2f",
					round+1, b.name, n, fmtRate(rateM, "rows/s"), m.wall.Seconds(), m.firstRow.Seconds(), m.cpu.Seconds(), simM.Seconds(), mb(m.peakRSS), rateM/rateA, read)
			}
			t.Setenv("RPCONNECT_DORIS_BIN", headBin)
		}
		if narrow {
			s.collect(t)
			if os.Getenv("BENCH_GCTRACE") == "1" {
				// The live heap after each collection of the narrow runs
				// (on stderr): what grows with the table, if anything.
				t.Setenv("GODEBUG", "gctrace=1")
			}
			n5 := runRPConnect(t, ctx, snapshotConfig(s, "narrow5m"), nil, nil)
			n1 := runRPConnect(t, ctx, snapshotConfig(s, "narrow1m"), nil, nil)
			fRatio = append(fRatio, float64(n5.peakRSS)/float64(n1.peakRSS))
			t.Logf("round %d: f 5M %.0f MB (%.2f s), 1M %.0f MB (%.2f s), 5M/1M %.2f", round+1,
				mb(n5.peakRSS), n5.wall.Seconds(), mb(n1.peakRSS), n1.wall.Seconds(), fRatio[len(fRatio)-1])
		}
	}
	var rows []row
	for i, n := range atOnce {
		for _, b := range bins {
			rows = append(rows, info(fmt.Sprintf("m%s/a rows/s, max_parallel_snapshot_tables %d (0: default), median of %d", b.name, n, rounds),
				fmtRatios(mRatio[b.name][i])),
				info("   the same from each run's first row to its last", fmtRatios(mRead[b.name][i])))
		}
	}
	if narrow {
		rows = append(rows, info("f. peak RSS 5M / 1M narrow (median)", fmtRatios(fRatio)))
	}
	fmt.Printf("\n%s", renderTable(rows))
}

// perfSim records the simulator with perf (BENCH_PERF_SIM=1 and a
// BENCH_PPROF dir) until the returned func is called.
func perfSim(t *testing.T, s *sim, path string) func() {
	if path == "" || os.Getenv("BENCH_PERF_SIM") != "1" {
		return func() {}
	}
	cmd := exec.Command("perf", "record", "-F", "499", "-g", "-o", strings.TrimSuffix(path, ".pprof")+".perf",
		"-p", strconv.Itoa(s.cmd.Process.Pid))
	if err := cmd.Start(); err != nil {
		t.Logf("perf: %v", err)
		return func() {}
	}
	return func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
}

func fmtRatios(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.2f (%s)", median(v), strings.Join(parts, ", "))
}

// seedRatioTables loads the mixed table, the 100 small ones and, with
// narrow, the two narrow tables.
func seedRatioTables(t *testing.T, ctx context.Context, s *sim, narrow bool) {
	t.Helper()
	stmts := []string{"CREATE DATABASE IF NOT EXISTS " + benchDB, mixedDDL("mixed", false)}
	if narrow {
		stmts = append(stmts, narrowDDL("narrow5m"), narrowDDL("narrow1m"))
	}
	for i := range manyTables {
		stmts = append(stmts, mixedDDL(manyName(i), true))
	}
	for _, st := range stmts {
		if err := s.exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	measure(t, "seed mixed", func() error { return s.loadRange(ctx, "mixed", 0, snapshotRows, 0, appendMixedRow, nil) })
	if narrow {
		measure(t, "seed narrow", func() error {
			if err := s.loadRange(ctx, "narrow5m", 0, narrowBig, 0, appendNarrowRow, nil); err != nil {
				return err
			}
			return s.loadRange(ctx, "narrow1m", 0, narrowSmall, 0, appendNarrowRow, nil)
		})
	}
	measure(t, "seed many", func() error { return loadMany(ctx, s) })
}

// runManySnapshot is row m's snapshot, timed to its last row and stopped
// there (without the idle span that follows in row m).
func runManySnapshot(t *testing.T, ctx context.Context, s *sim, atOnce int, prof string) (procResult, error) {
	return runManySnapshotIn(t, ctx, s, "initial", atOnce, prof)
}

// runManySnapshotIn is runManySnapshot in the given scan_mode: in snapshot
// mode there is no stream start to resolve, so the run has no wait for the
// next whole Doris second before its first read.
func runManySnapshotIn(t *testing.T, ctx context.Context, s *sim, mode string, atOnce int, prof string) (procResult, error) {
	addr := testnet.FreeAddr(t)
	splits := "2"
	if v := os.Getenv("BENCH_MANY_SPLITS"); v != "" {
		splits = v
	}
	extra := []string{"scan_mode: " + mode, "max_parallel_snapshot_splits: " + splits, "binlog_poll_interval: 1s"}
	if atOnce > 0 {
		extra = append(extra, fmt.Sprintf("max_parallel_snapshot_tables: %d", atOnce))
	}
	if v := os.Getenv("BENCH_MANY_TABLET_SIZE"); v != "" {
		extra = append(extra, "request_tablet_size: "+v)
	}
	cfg := multiConfig(s, manyInclude, addr, extra...)
	var onLine func(string, time.Time)
	if os.Getenv("BENCH_MANY_LOG") == "1" {
		// The start-up timeline: the log lines with the time since the start
		// (debug: each table's snapshot start is a debug line).
		cfg = strings.Replace(cfg, quietTail, "logger:\n  level: DEBUG\n", 1)
		began := time.Now()
		var first time.Duration
		onLine = func(line string, at time.Time) {
			if os.Getenv("BENCH_MANY_LOG_ALL") == "1" {
				fmt.Printf("%8.3f %s\n", at.Sub(began).Seconds(), line)
			}
			if first == 0 && strings.Contains(line, "Snapshot of") {
				first = at.Sub(began)
				t.Logf("row m: first table snapshot started %.3f s after the start", first.Seconds())
			}
		}
	}
	total := manyTables * manyTableRows
	if prof != "" {
		go captureProfile(t, addr, prof)
	}
	res := runRPConnectWith(t, ctx, cfg, runOpts{
		stop:     func(int) bool { return scrapeRows(addr, "snapshot") >= total },
		onLine:   onLine,
		rowsAddr: addr,
	})
	if res.wall == 0 {
		return res, fmt.Errorf("row m: the input stopped before its snapshot ended")
	}
	return res, nil
}

// runSnapshotA is row a's snapshot, with the time to its first row; with
// prof set, its debug endpoints are on and a CPU profile is captured while
// it reads.
func runSnapshotA(t *testing.T, ctx context.Context, s *sim, prof string) procResult {
	addr := testnet.FreeAddr(t)
	if prof != "" {
		go captureProfile(t, addr, prof)
	}
	return runRPConnectWith(t, ctx, snapshotConfigAt(s, "mixed", addr, prof != ""), runOpts{rowsAddr: addr})
}
