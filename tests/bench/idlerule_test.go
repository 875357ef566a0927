package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
)

// Issue 33 point 4: what the rule that skips idle tables buys, as ratios
// inside one run. Row k runs the idle tables twice, with the rule and
// without it; row l makes a few of them busy; row n (a simulator of its
// own, TestManyIdleTablesBench) follows ten times as many.
const (
	// idleRuleField is the doris_binlog field that turns the rule off.
	idleRuleField = "skip_idle_tables"
	// sessionCapField and sessionCap: the input's Flight session cap and
	// the value row l runs with (the field's default).
	sessionCapField = "max_flight_sessions"
	sessionCap      = 16

	busyTables  = 10
	busyRows    = 5                     // rows per table per tick
	busyTick    = 50 * time.Millisecond // 10 tables × 5 rows × 20 ticks/s: 1,000 changes/s
	busySteady  = 20 * time.Second
	busyMaxWait = 5 * time.Minute // start to all tables in the chain
	manyFactor  = 10              // row n follows this many times row k's tables
)

// idleResult is rows k and l.
type idleResult struct {
	on, off idleRun
	busy    busyResult
}

// busyResult is row l: commit-to-output latency while busyTables of the
// idle tables change, and the most Flight sessions open during it.
type busyResult struct {
	tables       int
	lat          latencyResult
	sessionsPeak int64 // above those open before the run
}

// measureIdle seeds the idle tables and measures rows k and l on them.
func measureIdle(t *testing.T, ctx context.Context, s *sim) idleResult {
	t.Helper()
	n := idleTableCount(t)
	seedIdle(t, ctx, s, 0, n)
	r := idleResult{on: idleRun{tables: n, rule: true}, off: idleRun{tables: n}}
	s.row(t, fmt.Sprintf("doris_binlog latest, %d idle tables, rule on", n), func() error { return r.on.run(t, ctx, s) })
	s.row(t, fmt.Sprintf("doris_binlog latest, %d idle tables, rule off", n), func() error { return r.off.run(t, ctx, s) })
	s.row(t, fmt.Sprintf("doris_binlog latest, %d tables, %d busy", n, busyTables), func() error {
		var err error
		r.busy, err = measureBusy(t, ctx, s, n)
		return err
	})
	return r
}

// busyConfig follows every idle table and prints each event's commit time.
func busyConfig(s *sim, addr string) string {
	out := "pipeline:\n  processors:\n    - mapping: 'root = \"%v\".format(@commit_ts_ms)'\n" +
		"output:\n  stdout:\n    codec: lines\n"
	return multiConfigTo(s, idleInclude, addr, out, "scan_mode: latest", "binlog_poll_interval: 1s",
		"table_discovery_interval: 1h", idleRuleSetting(true), fmt.Sprintf("%s: %d", sessionCapField, sessionCap))
}

// measureBusy writes busyRows rows into each of the first busyTables idle
// tables every busyTick once every table streams, and measures latency and
// sessions.
func measureBusy(t *testing.T, ctx context.Context, s *sim, tables int) (busyResult, error) {
	t.Helper()
	r := busyResult{tables: tables}
	before, err := s.requestStats(ctx)
	if err != nil {
		return r, err
	}
	addr := testnet.FreeAddr(t)
	began := time.Now()
	joined := func() (bool, error) {
		if time.Since(began) > busyMaxWait {
			return false, fmt.Errorf("%d tables did not all stream within %v", tables, busyMaxWait)
		}
		return scrapeMetric(addr, "doris_binlog_tables", `state="streaming"`) >= int64(tables), nil
	}
	write := func(ctx context.Context, id int64) (int, error) {
		for i := range busyTables {
			var b strings.Builder
			fmt.Fprintf(&b, "INSERT INTO %s.%s (id, user_id, name) VALUES ", benchDB, idleName(i))
			for j := range busyRows {
				if j > 0 {
					b.WriteString(", ")
				}
				row := id*busyRows + int64(j)
				fmt.Fprintf(&b, "(%d, %d, 'busy')", row, row%1000)
			}
			if err := s.exec(ctx, b.String()); err != nil {
				return 0, err
			}
		}
		return busyTables * busyRows, nil
	}
	var sampleErr error
	sample := func() {
		st, err := s.requestStats(ctx)
		if err != nil {
			sampleErr = err
			return
		}
		r.sessionsPeak = max(r.sessionsPeak, st.FlightSessionsOpen-before.FlightSessionsOpen)
	}
	r.lat = measureLatencyOf(t, ctx, busyConfig(s, addr), busySteady, busyTick, write, sample, joined)
	if sampleErr != nil {
		return r, sampleErr
	}
	if len(r.lat.lat) == 0 {
		return r, fmt.Errorf("no events received of %d written", r.lat.written)
	}
	return r, nil
}

// rows are rows k and l, checked against the single table's latency of
// row e (single).
func (r idleResult) rows(single latencyResult) []row {
	rows := r.on.rows("k.")
	rows = append(rows, r.off.rows("k (rule off)")...)
	onPoll := r.on.perPoll(r.on.feRequests())
	cpuRatio := ratio(r.on.cpuPerTable(), r.off.cpuPerTable())
	windowsPerSec := float64(r.on.polls()) / r.on.span.Seconds()
	rows = append(rows,
		check("k. FE requests per poll, rule on", fmt.Sprintf("%.1f (rule off %.1f)", onPoll, r.off.perPoll(r.off.feRequests())), "<= 5", onPoll <= 5),
		check("k. windows per second at a 1s poll, rule on", fmt.Sprintf("%.2f", windowsPerSec), ">= 0.95", windowsPerSec >= 0.95),
		check("k. client CPU per table, rule on / off", fmt.Sprintf("%.3f", cpuRatio), "<= 0.1", cpuRatio <= 0.1),
	)
	if len(r.busy.lat.lat) == 0 {
		return rows
	}
	p99, ref := percentile(r.busy.lat.lat, 99), percentile(single.lat, 99)
	lr := ratio(p99.Seconds(), ref.Seconds())
	return append(rows,
		info(fmt.Sprintf("l. %d tables, %d of them busy: latency p50 / p99", r.busy.tables, busyTables),
			fmt.Sprintf("%v / %v (%d of %d events; row e p99 %v)", percentile(r.busy.lat.lat, 50).Round(time.Millisecond),
				p99.Round(time.Millisecond), len(r.busy.lat.lat), r.busy.lat.written, ref.Round(time.Millisecond))),
		check("l. latency p99 / row e p99", fmt.Sprintf("%.2f", lr), "<= 1.2", lr <= 1.2),
		check("l. Flight sessions open at most", fmt.Sprint(r.busy.sessionsPeak), fmt.Sprintf("<= %d", sessionCap), r.busy.sessionsPeak <= sessionCap),
	)
}

// TestIdleTablesBench runs rows e, k and l on a simulator of its own, e.g.
// BENCH=1 BENCH_IDLE_TABLES=100 go test -run TestIdleTablesBench ./tests/bench/.
// `make bench` measures them inside TestBench.
func TestIdleTablesBench(t *testing.T) {
	if os.Getenv("BENCH") != "1" {
		t.Skip("set BENCH=1 to run the idle tables rows")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	s := startSim(t)
	single := seedLatency(t, ctx, s)
	r := measureIdle(t, ctx, s)
	fmt.Println()
	fmt.Print(renderTable(r.rows(single)))
}

// seedLatency measures row e alone, on a table of its own.
func seedLatency(t *testing.T, ctx context.Context, s *sim) latencyResult {
	t.Helper()
	for _, st := range []string{"CREATE DATABASE IF NOT EXISTS " + benchDB, mixedDDL("lat", true)} {
		if err := s.exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	return measureLatency(t, ctx, s, "lat", 20*time.Second)
}

// TestManyIdleTablesBench is row n: ten times row k's idle tables (10,000)
// on a simulator of their own, with the rule: how long they take to join
// the chain, the client's peak RSS and the FE's requests per poll. `make
// bench` runs it after TestBench.
func TestManyIdleTablesBench(t *testing.T) {
	if os.Getenv("BENCH") != "1" {
		t.Skip("set BENCH=1 to run the 10,000 idle tables row")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	s := startSim(t)
	n := manyFactor * idleTableCount(t)
	seedIdle(t, ctx, s, 0, n)
	r := idleRun{tables: n, rule: true}
	s.row(t, fmt.Sprintf("doris_binlog latest, %d idle tables, rule on", n), func() error { return r.run(t, ctx, s) })
	polls := r.perPoll(r.feRequests())
	rows := append(r.rows("n."),
		info(fmt.Sprintf("n. %d idle tables: join time, peak RSS", n), fmt.Sprintf("%.1f s, %.0f MB", r.joined.Seconds(), mb(r.peakRSS))),
		check(fmt.Sprintf("n. %d idle tables: FE requests per poll", n), fmt.Sprintf("%.1f", polls), "<= 5", polls <= 5))
	fmt.Println()
	fmt.Print(renderTable(rows))
}
