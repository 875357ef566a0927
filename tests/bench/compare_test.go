package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestCompareCPU measures the client CPU of rows a (snapshot of the 1M mixed
// table) and d (the 1M-change backlog) for two rpconnect-doris binaries,
// BENCH_BASE_BIN and this tree's, against one seeded simulator, alternating
// them for BENCH_ROUNDS rounds (default 5). CPU per event moves by tens of
// percent between hours on a shared machine, so a budget such as "no more
// than before" can only be checked as a ratio taken in one sitting; `make
// bench-compare BASE=<commit>` builds the base binary and runs this.
func TestCompareCPU(t *testing.T) {
	baseBin := os.Getenv("BENCH_BASE_BIN")
	if os.Getenv("BENCH") != "1" || baseBin == "" {
		t.Skip("set BENCH=1 and BENCH_BASE_BIN (or run make bench-compare BASE=<commit>)")
	}
	headBin := os.Getenv("RPCONNECT_DORIS_BIN")
	if headBin == "" {
		t.Skip("set RPCONNECT_DORIS_BIN to this tree's binary (make bench-compare does)")
	}
	rounds := benchRounds(5)
	ctx, s := scaledSim(t, 60*time.Minute)
	scanFrom := seedMixedAndBacklog(t, ctx, s)
	bins := []struct{ name, path string }{{"base", baseBin}, {"head", headBin}}
	samples := map[string]*cpuSamples{"base": {}, "head": {}}
	for round := range rounds {
		for _, b := range bins {
			t.Setenv("RPCONNECT_DORIS_BIN", b.path)
			snap := runRPConnect(t, ctx, snapshotConfig(s, "mixed"), nil, nil)
			events, _, backlog, err := runBacklog(t, ctx, s, scanFrom)
			if err != nil {
				t.Fatalf("round %d, %s: %v", round+1, b.name, err)
			}
			c := samples[b.name]
			c.snapshot = append(c.snapshot, snap.cpu.Seconds()/(float64(snapshotRows)/1e6))
			c.backlog = append(c.backlog, backlog.cpu.Seconds()/(float64(events)/1e6))
			t.Logf("round %d %s: snapshot %.2f s, backlog %.2f s per 1M", round+1, b.name,
				c.snapshot[len(c.snapshot)-1], c.backlog[len(c.backlog)-1])
		}
	}
	base, head := samples["base"], samples["head"]
	rows := []row{
		info("a. snapshot CPU per 1M rows, base / head (median)", fmt.Sprintf("%s / %s", base.fmt(base.snapshot), head.fmt(head.snapshot))),
		info("a. head / base", fmt.Sprintf("%.2f", median(head.snapshot)/median(base.snapshot))),
		info("g. backlog CPU per 1M events, base / head (median)", fmt.Sprintf("%s / %s", base.fmt(base.backlog), head.fmt(head.backlog))),
		info("g. head / base", fmt.Sprintf("%.2f", median(head.backlog)/median(base.backlog))),
	}
	fmt.Printf("\n%d rounds, base %s, head %s\n\n%s", rounds, baseBin, headBin, renderTable(rows))
}

// cpuSamples are one binary's CPU figures, one per round.
type cpuSamples struct{ snapshot, backlog []float64 }

func (c *cpuSamples) fmt(v []float64) string {
	return fmt.Sprintf("%.2f s (%.2f–%.2f)", median(v), slices.Min(v), slices.Max(v))
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benchRounds is BENCH_ROUNDS, how many rounds a test that alternates runs
// in one sitting takes; def when it is unset or not a positive number.
func benchRounds(def int) int {
	if v, err := strconv.Atoi(os.Getenv("BENCH_ROUNDS")); err == nil && v > 0 {
		return v
	}
	return def
}
