package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
)

const pollInterval = time.Second

// Table sizes of the issue; BENCH_SCALE (e.g. 0.02) shrinks them for a quick
// trial of the suite itself.
var (
	snapshotRows   int64 = 1_000_000
	narrowBig      int64 = 5_000_000
	narrowSmall    int64 = 1_000_000
	backlogChanges int64 = 1_000_000
)

func applyScale(t *testing.T) {
	v := os.Getenv("BENCH_SCALE")
	if v == "" {
		return
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > 1 {
		t.Fatalf("BENCH_SCALE=%q: want a number in (0, 1]", v)
	}
	for _, n := range []*int64{&snapshotRows, &narrowBig, &narrowSmall, &backlogChanges, &manyTableRows} {
		*n = max(10, int64(float64(*n)*f)/10*10)
	}
}

// results gathers the measurements of one run.
type results struct {
	snap, narrow5, narrow1, backlog procResult
	load                            procResult  // Doris -> Doris through doris_load
	kafka                           kafkaResult // kafka_test.go
	snapBytes                       int64
	mysql, raw, rawIncr             pathResult
	backlogEvents                   int64
	latency                         latencyResult
	partitions                      partitionResults
	multi                           multiResult  // multitable_test.go
	pairs                           pairedRatios // pairs_test.go
	idle                            idleResult   // idle_test.go
	// CPU of the test process (in-process paths) and of dorissim, per path.
	mysqlCPU, rawCPU                   time.Duration
	simSnapCPU, simMySQLCPU, simRawCPU time.Duration
}

// TestBench is `make bench`: it seeds dorissim, measures every path in one
// run and prints one table. Timings are reported, never asserted.
func TestBench(t *testing.T) {
	if os.Getenv("BENCH") != "1" {
		t.Skip("set BENCH=1 (make bench) to run the benchmark suite")
	}
	ctx, s := scaledSim(t, 50*time.Minute)
	scanFrom := seedAll(t, ctx, s)
	var r results
	var err error
	s.row(t, "raw Flight DoGet", func() error {
		r.rawCPU, r.simRawCPU = cpuOf(t, s, func() {
			r.raw, _, err = flightPath(ctx, s, fmt.Sprintf("SELECT * FROM `%s`.`mixed`", benchDB))
		})
		return err
	})
	s.row(t, "MySQL protocol", func() error {
		r.mysqlCPU, r.simMySQLCPU = cpuOf(t, s, func() {
			r.mysql, err = mysqlPath(ctx, s, "mixed", map[string]bool{"active": true})
		})
		return err
	})
	r.snapBytes = r.mysql.bytes
	s.row(t, "doris_binlog snapshot 1M mixed", func() error {
		_, r.simSnapCPU = cpuOf(t, s, func() {
			addr := testnet.FreeAddr(t)
			r.snap = runRPConnectWith(t, ctx, snapshotConfigAt(s, "mixed", addr, false), runOpts{rowsAddr: addr})
		})
		return nil
	})
	s.row(t, "doris_binlog snapshot 5M narrow", func() error {
		r.narrow5 = runRPConnect(t, ctx, snapshotConfig(s, "narrow5m"), nil, nil)
		return nil
	})
	s.row(t, "doris_binlog snapshot 1M narrow", func() error {
		r.narrow1 = runRPConnect(t, ctx, snapshotConfig(s, "narrow1m"), nil, nil)
		return nil
	})
	s.row(t, "doris_load copy 1M mixed", func() error {
		r.load, err = runLoad(t, ctx, s)
		return err
	})
	r.kafka = measureKafka(t, ctx, s)
	s.row(t, "binlog backlog", func() error {
		r.backlogEvents, r.rawIncr, r.backlog, err = runBacklog(t, ctx, s, scanFrom)
		return err
	})
	r.partitions = measurePartitions(t, ctx, s)
	s.row(t, "commit-to-output latency", func() error {
		r.latency = measureLatency(t, ctx, s, "lat", 20*time.Second)
		if len(r.latency.lat) == 0 {
			return fmt.Errorf("no events received of %d written", r.latency.written)
		}
		return nil
	})
	// Seeded only now, so that rows a-g run on the simulator they always had.
	spreadFrom := seedMulti(t, ctx, s)
	r.multi = measureMulti(t, ctx, s, spreadFrom)
	r.pairs = measurePairs(t, ctx, s, scanFrom, spreadFrom)
	r.idle = measureIdle(t, ctx, s) // last: its 1,000 tables would slow every listing before it
	fmt.Println()
	rows := append(r.rows(), r.multi.rows(r.single())...)
	fmt.Print(renderTable(append(append(rows, r.pairs.rows()...), r.idle.rows(r.latency)...)))
}

// cpuOf runs fn and returns the user+sys CPU it cost this process and the
// simulator.
func cpuOf(t *testing.T, s *sim, fn func()) (self, server time.Duration) {
	t.Helper()
	self0, sim0 := selfCPU(t), s.cpu(t)
	fn()
	return selfCPU(t) - self0, s.cpu(t) - sim0
}

func selfCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(t *testing.T, name string, fn func() error) {
	t.Helper()
	start := time.Now()
	if err := fn(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%s: done in %v", name, time.Since(start).Round(time.Millisecond))
}

// seedAll creates and loads every table and returns the scan_timestamp that
// precedes the backlog's changes.
func seedAll(t *testing.T, ctx context.Context, s *sim) string {
	t.Helper()
	stmts := []string{
		"CREATE DATABASE IF NOT EXISTS " + benchDB,
		mixedDDL("mixed", false), narrowDDL("narrow5m"), narrowDDL("narrow1m"),
		mixedDDL("backlog", true), mixedDDL("lat", true),
	}
	for _, st := range stmts {
		if err := s.exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	var scanFrom string
	steps := []struct {
		name string
		fn   func() error
	}{
		{"seed mixed 1M", func() error { return s.loadRange(ctx, "mixed", 0, snapshotRows, 0, appendMixedRow, nil) }},
		{"seed narrow 5M", func() error { return s.loadRange(ctx, "narrow5m", 0, narrowBig, 0, appendNarrowRow, nil) }},
		{"seed narrow 1M", func() error { return s.loadRange(ctx, "narrow1m", 0, narrowSmall, 0, appendNarrowRow, nil) }},
		{"seed backlog 1M changes", func() error {
			var err error
			if scanFrom, err = s.now(ctx); err != nil {
				return err
			}
			return s.seedBacklog(ctx, "backlog")
		}},
	}
	for _, st := range steps {
		measure(t, st.name, st.fn)
	}
	return scanFrom
}

func snapshotConfig(s *sim, table string) string {
	return snapshotInput(s, table) + "http:\n  enabled: false\n" + quietTail
}

// snapshotConfigAt is snapshotConfig with the metrics at addr (and, with
// debug, the pprof endpoints), for runOpts.rowsAddr to read.
func snapshotConfigAt(s *sim, table, addr string, debug bool) string {
	return snapshotInput(s, table) +
		fmt.Sprintf("http:\n  enabled: true\n  address: %s\n  debug_endpoints: %t\nmetrics:\n  json_api: {}\n", addr, debug) + quietTail
}

// snapshotInput is row a's input and output: the table's snapshot, two
// splits at a time, dropped.
func snapshotInput(s *sim, table string) string {
	return inputConfig(s, table, "scan_mode: snapshot", "max_parallel_snapshot_splits: 2") + "output:\n  drop: {}\n"
}

// runBacklog counts the backlog's events with a raw Flight read of the same
// @incr window (the decode ceiling of the binlog path), then times the
// binary from scan_timestamp until its binlog row counter reaches that count.
func runBacklog(t *testing.T, ctx context.Context, s *sim, scanFrom string) (int64, pathResult, procResult, error) {
	t.Helper()
	time.Sleep(1100 * time.Millisecond) // the window end below must pass the last commit
	end, err := s.now(ctx)
	if err != nil {
		return 0, pathResult{}, procResult{}, err
	}
	raw, _, err := flightPath(ctx, s, doris.IncrSQLWhere(benchDB, "backlog", nil, scanFrom, end, "detail", ""))
	if err != nil {
		return 0, raw, procResult{}, err
	}
	addr := testnet.FreeAddr(t)
	cfg := inputConfig(s, "backlog", "scan_mode: from-timestamp", fmt.Sprintf("scan_timestamp: %q", scanFrom),
		"binlog_increment_type: detail", "binlog_poll_interval: 1s", "checkpoint_cache: cp") +
		"output:\n  drop: {}\n" + memoryCache +
		fmt.Sprintf("http:\n  enabled: true\n  address: %s\n  debug_endpoints: true\nmetrics:\n  json_api: {}\n", addr) + quietTail
	if dir := os.Getenv("BENCH_PPROF"); dir != "" {
		go captureProfile(t, addr, filepath.Join(dir, "backlog.pprof"))
	}
	var got int64
	res := runRPConnect(t, ctx, cfg, func() bool {
		got = scrapeBinlogRows(addr)
		return got >= raw.rows
	}, nil)
	if got < raw.rows {
		return got, raw, res, fmt.Errorf("backlog: the input delivered %d of %d events", got, raw.rows)
	}
	return raw.rows, raw, res, nil
}

// rows turns the measurements into the table, with the targets.
func (r *results) rows() []row {
	snapSecs := r.snap.wall.Seconds()
	snapRate := perSec(snapshotRows, snapSecs)
	mysqlRate := perSec(r.mysql.rows, r.mysql.wall.Seconds())
	rawRate := perSec(r.raw.rows, r.raw.wall.Seconds())
	backlogRate := r.backlogRate()
	rawIncrRate := perSec(r.rawIncr.rows, r.rawIncr.wall.Seconds())
	p50, p99 := percentile(r.latency.lat, 50), percentile(r.latency.lat, 99)
	rss5, rss1 := float64(r.narrow5.peakRSS), float64(r.narrow1.peakRSS)
	cpuPerM := func(p procResult, events int64) float64 { return p.cpu.Seconds() / (float64(events) / 1e6) }
	return append([]row{
		info(fmt.Sprintf("a. doris_binlog snapshot, %s mixed rows", count(snapshotRows)), fmt.Sprintf("%s, %.1f MB/s JSON (%.2f s, first row at %.2f s)", fmtRate(snapRate, "rows/s"), mb(r.snapBytes)/snapSecs, snapSecs, r.snap.firstRow.Seconds())),
		info("b. MySQL protocol + same JSON messages", fmtRate(mysqlRate, "rows/s")),
		info("c. raw Flight DoGet, typed decode only", fmt.Sprintf("%s, %.1f MB/s Arrow", fmtRate(rawRate, "rows/s"), mb(r.raw.bytes)/r.raw.wall.Seconds())),
		check("a/b (Flight path vs MySQL path)", fmt.Sprintf("%.2f", ratio(snapRate, mysqlRate)), ">= 5", ratio(snapRate, mysqlRate) >= 5),
		check("a/c (conversion vs raw decode)", fmt.Sprintf("%.2f", ratio(snapRate, rawRate)), ">= 0.5", ratio(snapRate, rawRate) >= 0.5),
		info("d. binlog backlog, detail mode", fmt.Sprintf("%s (%d events of %d changes), peak RSS %.0f MB", fmtRate(backlogRate, "events/s"), r.backlogEvents, backlogChanges, mb(r.backlog.peakRSS))),
		info("   raw Flight DoGet of the same @incr window", fmtRate(rawIncrRate, "events/s")),
		check("backlog vs snapshot, per event (d/a)", fmt.Sprintf("%.2f", ratio(backlogRate, snapRate)), ">= 1", backlogRate >= snapRate),
		info("e. latency p50 (poll 1s, 20 txn/s)", fmt.Sprintf("%v (%d of %d events)", p50.Round(time.Millisecond), len(r.latency.lat), r.latency.written)),
		check("e. latency p99", p99.Round(time.Millisecond).String(), "<= 1.5s", p99 <= pollInterval+500*time.Millisecond),
		info(fmt.Sprintf("f. peak RSS, %s-row mixed snapshot", count(snapshotRows)), fmt.Sprintf("%.0f MB", mb(r.snap.peakRSS))),
		info(fmt.Sprintf("f. peak RSS, %s-row narrow snapshot", count(narrowSmall)), fmt.Sprintf("%.0f MB", mb(r.narrow1.peakRSS))),
		check(fmt.Sprintf("f. peak RSS, %s-row narrow snapshot", count(narrowBig)), fmt.Sprintf("%.0f MB", mb(r.narrow5.peakRSS)), "< 256 MB", r.narrow5.peakRSS < 256<<20),
		info(fmt.Sprintf("f. peak RSS %s / %s (narrow; checked in pairs, row q)", count(narrowBig), count(narrowSmall)), fmt.Sprintf("%.2f", ratio(rss5, rss1))),
		info("   client CPU per 1M rows: a / b / c", fmt.Sprintf("%.2f s / %.2f s / %.2f s",
			cpuPerM(r.snap, snapshotRows), r.mysqlCPU.Seconds()/(float64(r.mysql.rows)/1e6), r.rawCPU.Seconds()/(float64(r.raw.rows)/1e6))),
		info("   dorissim CPU per 1M rows: a / b / c", fmt.Sprintf("%.2f s / %.2f s / %.2f s",
			r.simSnapCPU.Seconds()/(float64(snapshotRows)/1e6), r.simMySQLCPU.Seconds()/(float64(r.mysql.rows)/1e6), r.simRawCPU.Seconds()/(float64(r.raw.rows)/1e6))),
		info("g. CPU per 1M events, snapshot (user+sys)", fmt.Sprintf("%.2f s", cpuPerM(r.snap, snapshotRows))),
		info("g. CPU per 1M events, backlog (user+sys)", fmt.Sprintf("%.2f s", cpuPerM(r.backlog, r.backlogEvents))),
	}, append(loadRows(r.snap, r.load), append(r.kafka.rows(), r.partitions.rows()...)...)...)
}

func (r *results) backlogRate() float64 { return perSec(r.backlogEvents, r.backlog.wall.Seconds()) }

// single is rows a and d, for the multi-table rows to be held against; a
// run without row a (TestMultiTableBench) has no snapshot rate.
func (r *results) single() singleRef {
	ref := singleRef{backlogRate: r.backlogRate(), backlogRSS: r.backlog.peakRSS}
	if r.backlogEvents > 0 {
		ref.backlogCPU = r.backlog.cpu.Seconds() / (float64(r.backlogEvents) / 1e6)
	}
	if r.snap.wall > 0 {
		ref.snapRate = perSec(snapshotRows, r.snap.wall.Seconds())
		ref.snapRead = fromFirstRow(r.snap, snapshotRows)
	}
	return ref
}

// count prints a row count the way the issue does: 1M, 5M, 20k.
func count(n int64) string {
	switch {
	case n >= 1e6 && n%1e5 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	case n >= 1e3 && n%100 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "k"
	default:
		return strconv.FormatInt(n, 10)
	}
}
