package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// The multi-table rows of issue 8: many small tables in one input, the
// cost of idle ones, and a backlog spread over several tables.
const (
	manyTables   = 100
	spreadTables = 10
	manyInclude  = `bench\.many_\d+`
	manyAtOnce   = 0 // max_parallel_snapshot_tables: 0 leaves the input's default
	spreadIncl   = `bench\.spread_\d+`
	// The idle tables are measured after the snapshot has settled, over a
	// span that holds no table discovery (the default runs it every minute).
	idleSettle = 5 * time.Second
	idleFor    = 20 * time.Second
)

var manyTableRows int64 = 10_000

func manyName(i int) string   { return fmt.Sprintf("many_%03d", i) }
func spreadName(i int) string { return fmt.Sprintf("spread_%d", i) }

// multiResult holds the multi-table measurements and the pinned ones.
type multiResult struct {
	snap         procResult // the binary up to its last snapshot row
	snapRSS      int64      // VmHWM when the snapshot finished
	idle         spanCost   // the idle span, once the snapshot settled
	spread       procResult
	spreadEvents int64
	pinned       pinnedResult
}

// seedMulti creates the 100 small and the 10 backlog tables, loads the
// small ones and applies the spread backlog; it returns the scan_timestamp
// that precedes the backlog.
func seedMulti(t *testing.T, ctx context.Context, s *sim) string {
	t.Helper()
	var stmts []string
	for i := range manyTables {
		stmts = append(stmts, mixedDDL(manyName(i), true))
	}
	for _, st := range stmts {
		if err := s.exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	measure(t, fmt.Sprintf("seed %d tables of %s rows", manyTables, count(manyTableRows)), func() error {
		return loadMany(ctx, s)
	})
	return seedSpread(t, ctx, s)
}

// loadMany loads row m's tables and then counts each one. dorissim keeps a
// unique-key tablet's rows by key and sorts them on the first read after a
// write, where Doris sorted them when it wrote the load's segments; the
// count takes that sort out of row m, whose tables Doris would have on
// disk, sorted, before any reader came.
func loadMany(ctx context.Context, s *sim) error {
	for i := range manyTables {
		if err := s.loadRange(ctx, manyName(i), 0, manyTableRows, 0, appendMixedRow, nil); err != nil {
			return err
		}
	}
	for i := range manyTables {
		var n int64
		q := fmt.Sprintf("SELECT COUNT(*) FROM %s.%s", benchDB, manyName(i))
		if err := s.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return fmt.Errorf("dorissim %s: %q: %w", s.mysql, q, err)
		}
		if n != manyTableRows {
			return fmt.Errorf("%s holds %d rows after its load, want %d", manyName(i), n, manyTableRows)
		}
	}
	return nil
}

// seedSpread creates the 10 backlog tables and applies the spread backlog
// to them, table after table; it returns the scan_timestamp that precedes
// it.
func seedSpread(t *testing.T, ctx context.Context, s *sim) string {
	t.Helper()
	for i := range spreadTables {
		if err := s.exec(ctx, mixedDDL(spreadName(i), true)); err != nil {
			t.Fatal(err)
		}
	}
	var scanFrom string
	measure(t, fmt.Sprintf("seed backlog %d changes over %d tables", backlogChanges, spreadTables), func() error {
		var err error
		if scanFrom, err = s.now(ctx); err != nil {
			return err
		}
		for i := range spreadTables {
			if err := s.seedBacklogOf(ctx, spreadName(i), backlogChanges/spreadTables); err != nil {
				return err
			}
		}
		return nil
	})
	return scanFrom
}

// measureMulti runs the three multi-table measurements and the pinned one.
func measureMulti(t *testing.T, ctx context.Context, s *sim, spreadFrom string) multiResult {
	t.Helper()
	var m multiResult
	s.row(t, fmt.Sprintf("doris_binlog initial, %d tables, then idle", manyTables), func() error {
		return m.runManyTables(t, ctx, s)
	})
	s.row(t, fmt.Sprintf("binlog backlog over %d tables", spreadTables), func() error {
		return m.runSpreadBacklog(t, ctx, s, spreadFrom)
	})
	s.row(t, "pinned Flight and MySQL paths", func() error {
		var err error
		m.pinned, err = measurePinned(t, ctx, s)
		return err
	})
	return m
}

// multiConfig is a doris_binlog input over the tables include matches,
// with the metrics endpoint on addr.
func multiConfig(s *sim, include, addr string, extra ...string) string {
	return multiConfigTo(s, include, addr, "output:\n  drop: {}\n", extra...)
}

// multiConfigTo is multiConfig with output (a YAML block from `output:`,
// pipeline included) in place of the drop output.
func multiConfigTo(s *sim, include, addr, output string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "input:\n  doris_binlog:\n    fenodes: %s\n    include: ['%s']\n    username: root\n    password: \"\"\n    checkpoint_cache: cp\n",
		s.http, include)
	for _, e := range extra {
		b.WriteString("    " + e + "\n")
	}
	b.WriteString(output + memoryCache)
	fmt.Fprintf(&b, "http:\n  enabled: true\n  address: %s\n  debug_endpoints: true\nmetrics:\n  json_api: {}\n", addr)
	return b.String() + quietTail
}

// runManyTables snapshots the 100 tables in initial mode, then, once they
// all stream and nothing changes, measures what following them costs.
func (m *multiResult) runManyTables(t *testing.T, ctx context.Context, s *sim) error {
	addr := testnet.FreeAddr(t)
	extra := []string{"scan_mode: initial", "max_parallel_snapshot_splits: 2", "binlog_poll_interval: 1s"}
	if manyAtOnce > 0 {
		extra = append(extra, fmt.Sprintf("max_parallel_snapshot_tables: %d", manyAtOnce))
	}
	cfg := multiConfig(s, manyInclude, addr, extra...)
	total := manyTables * manyTableRows
	var (
		snapped  time.Time
		idleFrom spanStart
	)
	began := time.Now()
	step := func(pid int) (bool, error) {
		var err error
		switch {
		case snapped.IsZero():
			if scrapeRows(addr, "snapshot") < total {
				return false, nil
			}
			snapped = time.Now()
			m.snap.wall = snapped.Sub(began)
			if m.snap.cpu, err = procCPU(pid); err != nil {
				return true, err
			}
			var kb int64
			kb, err = procStatusKB(pid, "VmHWM")
			m.snapRSS = kb * 1024
		case idleFrom.at.IsZero():
			if time.Since(snapped) < idleSettle {
				return false, nil
			}
			idleFrom, err = startSpan(t, ctx, s, pid)
		default:
			if time.Since(idleFrom.at) < idleFor {
				return false, nil
			}
			m.idle, err = idleFrom.cost(t, ctx, s, pid)
			return true, err
		}
		return false, err
	}
	res, err := runSteps(t, ctx, cfg, addr, step)
	m.snap.peakRSS, m.snap.firstRow = res.peakRSS, res.firstRow
	if err != nil {
		return err
	}
	if snapped.IsZero() || m.idle.span == 0 {
		return fmt.Errorf("the input stopped before the idle span was measured")
	}
	return nil
}

// runSpreadBacklog is runBacklog over the 10 tables: their @incr windows
// counted by raw Flight reads, then the binary timed until its binlog row
// counter reaches the sum.
func (m *multiResult) runSpreadBacklog(t *testing.T, ctx context.Context, s *sim, scanFrom string) error {
	var err error
	m.spreadEvents, m.spread, err = runSpread(t, ctx, s, scanFrom, os.Getenv("BENCH_PPROF"))
	return err
}

// runSpread runs the 10-table backlog once; with dir set, it profiles the
// binary once the rows flow.
func runSpread(t *testing.T, ctx context.Context, s *sim, scanFrom, dir string) (int64, procResult, error) {
	time.Sleep(1100 * time.Millisecond) // the window end below must pass the last commit
	end, err := s.now(ctx)
	if err != nil {
		return 0, procResult{}, err
	}
	var events int64
	for i := range spreadTables {
		raw, _, err := flightPath(ctx, s, doris.IncrSQLWhere(benchDB, spreadName(i), nil, scanFrom, end, "detail", ""))
		if err != nil {
			return 0, procResult{}, err
		}
		events += raw.rows
	}
	addr := testnet.FreeAddr(t)
	cfg := multiConfig(s, spreadIncl, addr, "scan_mode: from-timestamp", fmt.Sprintf("scan_timestamp: %q", scanFrom),
		"binlog_increment_type: detail", "binlog_poll_interval: 1s")
	var got int64
	res := runRPConnect(t, ctx, cfg, func() bool {
		got = scrapeRows(addr, "binlog")
		if dir != "" && got > 0 {
			// Profile once the rows flow, not the start-up.
			go captureProfile(t, addr, filepath.Join(dir, "spread.pprof"))
			dir = ""
		}
		return got >= events
	}, nil)
	if got < events {
		return events, res, fmt.Errorf("spread backlog: the input delivered %d of %d events", got, events)
	}
	return events, res, nil
}

// requestStats reads dorissim's request counters (GET /api/_sim/stats).
func (s *sim) requestStats(ctx context.Context) (dorissim.Stats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.http+"/api/_sim/stats", nil)
	if err != nil {
		return dorissim.Stats{}, err
	}
	req.SetBasicAuth("root", "")
	resp, err := s.client.Do(req)
	if err != nil {
		return dorissim.Stats{}, fmt.Errorf("dorissim stats: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return dorissim.Stats{}, fmt.Errorf("dorissim stats: %w", err)
	}
	var env struct {
		Code int            `json:"code"`
		Data dorissim.Stats `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil || env.Code != 0 {
		return dorissim.Stats{}, fmt.Errorf("dorissim stats: HTTP %d: %s", resp.StatusCode, data)
	}
	return env.Data, nil
}

// statsDelta is what was counted between two readings.
func statsDelta(after, before dorissim.Stats) dorissim.Stats {
	sub := func(a, b map[string]int64) map[string]int64 {
		out := map[string]int64{}
		for k, v := range a {
			if d := v - b[k]; d != 0 {
				out[k] = d
			}
		}
		return out
	}
	return dorissim.Stats{HTTP: sub(after.HTTP, before.HTTP), FEFlight: sub(after.FEFlight, before.FEFlight),
		BEFlight: sub(after.BEFlight, before.BEFlight), MySQLConnections: after.MySQLConnections - before.MySQLConnections,
		MySQLStatements: after.MySQLStatements - before.MySQLStatements, FEIncrQueries: after.FEIncrQueries - before.FEIncrQueries}
}

// perSecond lists counts as rates, largest first: "GetFlightInfo 100/s, ...".
func perSecond(counts map[string]int64, span time.Duration) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(counts[b], counts[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.1f/s", k, float64(counts[k])/span.Seconds())
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// rows are the multi-table lines of the table; backlogRate is row d's.
// singleRef is what the multi-table rows are held against: the
// single-table snapshot (row a) and backlog (row d) of the same run.
type singleRef struct {
	snapRate    float64 // rows/s of a; 0 when not measured
	snapRead    float64 // rows/s of a from its first row; 0 when not measured
	backlogRate float64 // events/s of d
	backlogCPU  float64 // CPU seconds per 1M events of d
	backlogRSS  int64   // peak RSS of d
}

func (m *multiResult) rows(ref singleRef) []row {
	total := manyTables * manyTableRows
	snapRate := perSec(total, m.snap.wall.Seconds())
	secs := m.idle.span.Seconds()
	feRate := float64(m.idle.reqs.FERequests()) / secs
	cpuRate := m.idle.cpu.Seconds() / secs
	spreadRate := perSec(m.spreadEvents, m.spread.wall.Seconds())
	spreadCPU := m.spread.cpu.Seconds() / (float64(m.spreadEvents) / 1e6)
	rows := []row{
		info(fmt.Sprintf("m. initial snapshot, %d tables × %s mixed rows, %s", manyTables, count(manyTableRows), atOnceLabel(manyAtOnce)),
			fmt.Sprintf("%s (%.2f s to the last row, startup included; first row at %.2f s)", fmtRate(snapRate, "rows/s"),
				m.snap.wall.Seconds(), m.snap.firstRow.Seconds())),
	}
	if ref.snapRate > 0 {
		rows = append(rows, info(fmt.Sprintf("   %d tables vs 1 table (m/a; checked in pairs, row q)", manyTables), fmt.Sprintf("%.2f", ratio(snapRate, ref.snapRate))))
	}
	if ref.snapRead > 0 {
		read := ratio(fromFirstRow(m.snap, total), ref.snapRead)
		rows = append(rows, info("   the same from each run's first row to its last", fmt.Sprintf("%.2f", read)))
	}
	rows = append(rows,
		info("m. peak RSS at the end of that snapshot", fmt.Sprintf("%.0f MB", mb(m.snapRSS))),
		info(fmt.Sprintf("m. %d idle streaming tables, poll 1s: FE requests", manyTables),
			fmt.Sprintf("%.1f req/s (%.2f per table per poll)", feRate, feRate/manyTables)),
		info("   FE HTTP / FE Flight / BE Flight, per second", fmt.Sprintf("%s; %s; BE %s",
			perSecond(m.idle.reqs.HTTP, m.idle.span), perSecond(m.idle.reqs.FEFlight, m.idle.span), perSecond(m.idle.reqs.BEFlight, m.idle.span))),
		info(fmt.Sprintf("m. %d idle streaming tables: client CPU", manyTables),
			fmt.Sprintf("%.0f ms/s (%.2f ms/s per table); dorissim %.0f ms/s", cpuRate*1000, cpuRate*1000/manyTables,
				m.idle.simCPU.Seconds()/secs*1000)),
		info(fmt.Sprintf("m. binlog backlog over %d tables, detail mode", spreadTables),
			fmt.Sprintf("%s (%d events of %d changes), peak RSS %.0f MB", fmtRate(spreadRate, "events/s"), m.spreadEvents, backlogChanges, mb(m.spread.peakRSS))),
		info(fmt.Sprintf("   events/s, %d tables vs 1 table (m/d; checked in pairs, row q)", spreadTables), fmt.Sprintf("%.2f", ratio(spreadRate, ref.backlogRate))),
		info(fmt.Sprintf("m. CPU per 1M events, backlog over %d tables", spreadTables), fmt.Sprintf("%.2f s", spreadCPU)),
		info(fmt.Sprintf("   CPU per event, %d tables vs 1 table (m/g; checked in pairs, row q)", spreadTables), fmt.Sprintf("%.2f", ratio(spreadCPU, ref.backlogCPU))),
		info(fmt.Sprintf("   peak RSS, %d tables vs 1 table (m/d; checked in pairs, row q)", spreadTables), fmt.Sprintf("%.2f (%.0f MB / %.0f MB)",
			ratio(float64(m.spread.peakRSS), float64(ref.backlogRSS)), mb(m.spread.peakRSS), mb(ref.backlogRSS))),
	)
	return append(rows, m.pinned.rows()...)
}

func TestStatsDeltaAndRates(t *testing.T) {
	before := dorissim.Stats{HTTP: map[string]int64{"GET /api/tso": 5}, FEFlight: map[string]int64{"Handshake": 1}, MySQLConnections: 2, FEIncrQueries: 3}
	after := dorissim.Stats{HTTP: map[string]int64{"GET /api/tso": 25}, FEFlight: map[string]int64{"Handshake": 1, "GetFlightInfo": 40},
		BEFlight: map[string]int64{"DoGet": 40}, MySQLConnections: 2, FEIncrQueries: 38}
	d := statsDelta(after, before)
	if d.HTTP["GET /api/tso"] != 20 || d.FEFlight["GetFlightInfo"] != 40 || len(d.FEFlight) != 1 || d.BEFlight["DoGet"] != 40 || d.MySQLConnections != 0 || d.FEIncrQueries != 35 {
		t.Fatalf("delta %+v", d)
	}
	if got := perSecond(map[string]int64{"GetFlightInfo": 40, "Handshake": 4, "DoAction": 4}, 20*time.Second); got != "GetFlightInfo 2.0/s, DoAction 0.2/s, Handshake 0.2/s" {
		t.Fatalf("rates %q", got)
	}
	if got := perSecond(nil, time.Second); got != "none" {
		t.Fatalf("empty rates %q", got)
	}
}

// atOnceLabel names a max_parallel_snapshot_tables setting of the bench.
func atOnceLabel(n int) string {
	if n == 0 {
		return "max_parallel_snapshot_tables at its default"
	}
	return fmt.Sprintf("%d tables at once", n)
}
