package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Partitioned snapshot: the same rows in 30 partitions × 16 buckets (480
// tablets, so 480 splits at the default request_tablet_size 1) and in one
// partition × 16 buckets (16 splits). It shows what per-split overhead costs
// on a realistic production layout.
const (
	benchPartitions = 30
	benchBuckets    = 16
)

// partResult is one partitioned-snapshot measurement.
type partResult struct {
	proc   procResult
	splits int
}

// partitionResults holds both layouts.
type partitionResults struct {
	many, one partResult
}

// partitionedDDL splits [0, snapshotRows) by id into n equal RANGE
// partitions, the last one open-ended.
func partitionedDDL(table string, n int) string {
	if n == 1 {
		return fmt.Sprintf("CREATE TABLE %s.%s (%s) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS %d PROPERTIES (\"replication_num\" = \"1\")",
			benchDB, table, mixedColumns, benchBuckets)
	}
	parts := make([]string, n)
	step := snapshotRows / int64(n)
	for i := range parts {
		upper := fmt.Sprintf("(\"%d\")", int64(i+1)*step)
		if i == n-1 {
			upper = "(MAXVALUE)"
		}
		parts[i] = fmt.Sprintf("PARTITION p%02d VALUES LESS THAN %s", i, upper)
	}
	return fmt.Sprintf("CREATE TABLE %s.%s (%s) DUPLICATE KEY(id) PARTITION BY RANGE(id) (%s) DISTRIBUTED BY HASH(id) BUCKETS %d PROPERTIES (\"replication_num\" = \"1\")",
		benchDB, table, mixedColumns, strings.Join(parts, ", "), benchBuckets)
}

// measurePartitions seeds both tables with the same rows and snapshots each
// into drop.
func measurePartitions(t *testing.T, ctx context.Context, s *sim) partitionResults {
	t.Helper()
	var r partitionResults
	for _, c := range []struct {
		table string
		n     int
		out   *partResult
	}{{"parts30", benchPartitions, &r.many}, {"parts1", 1, &r.one}} {
		if err := s.exec(ctx, partitionedDDL(c.table, c.n)); err != nil {
			t.Fatal(err)
		}
		measure(t, fmt.Sprintf("seed %s (%d partitions)", c.table, c.n), func() error {
			return s.loadRange(ctx, c.table, 0, snapshotRows, 0, appendMixedRow, nil)
		})
		c.out.splits = c.n * benchBuckets
		s.row(t, fmt.Sprintf("doris_binlog snapshot %s", c.table), func() error {
			c.out.proc = runRPConnect(t, ctx, snapshotConfig(s, c.table), nil, nil)
			return nil
		})
	}
	return r
}

func (r partitionResults) rows() []row {
	line := func(p partResult) string {
		secs := p.proc.wall.Seconds()
		return fmt.Sprintf("%s, %s (%.2f s)", fmtRate(perSec(snapshotRows, secs), "rows/s"), fmtRate(perSec(int64(p.splits), secs), "splits/s"), secs)
	}
	return []row{
		info(fmt.Sprintf("h. snapshot, %s rows in %d partitions × %d buckets (%d splits)", count(snapshotRows), benchPartitions, benchBuckets, r.many.splits), line(r.many)),
		info(fmt.Sprintf("   same rows in 1 partition × %d buckets (%d splits)", benchBuckets, r.one.splits), line(r.one)),
	}
}

// TestPartitionsBenchRow runs only the partitioned-snapshot row, e.g.
// BENCH=1 BENCH_SCALE=0.05 go test -run TestPartitionsBenchRow ./tests/bench/.
// `make bench` measures it inside TestBench.
func TestPartitionsBenchRow(t *testing.T) {
	ctx, s := benchSim(t, "the partitioned snapshot row", 20*time.Minute)
	if err := s.exec(ctx, "CREATE DATABASE IF NOT EXISTS "+benchDB); err != nil {
		t.Fatal(err)
	}
	fmt.Println()
	fmt.Print(renderTable(measurePartitions(t, ctx, s).rows()))
}
