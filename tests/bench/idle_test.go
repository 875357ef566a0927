package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// Row k of issue 20: what following many tables that never change costs
// the FE and the client. The tables are empty binlog tables streamed in
// `latest` mode, so no snapshot runs; the span is measured once every
// table streams and the chain has read at least one window of all of them,
// and it holds no table discovery (table_discovery_interval is set past
// the run's end: a listing of the database is another cost, not a poll's).
const (
	idleTablesDefault = 1000
	idleInclude       = `bench\.idle_\d+`
	idleJoinLimit     = 3 * time.Minute // start to all tables in the chain
	idleSteadySettle  = 5 * time.Second
	idleSteadyFor     = 30 * time.Second
)

// idleTableCount is BENCH_IDLE_TABLES, for a quick trial at a smaller
// scale; the row reports 1,000 tables without it.
func idleTableCount(t *testing.T) int {
	v := os.Getenv("BENCH_IDLE_TABLES")
	if v == "" {
		return idleTablesDefault
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("BENCH_IDLE_TABLES=%q: want a positive table count", v)
	}
	return n
}

func idleName(i int) string { return fmt.Sprintf("idle_%04d", i) }

// idleResult is row k.
type idleResult struct {
	tables   int
	joined   time.Duration // process start to the chain holding every table
	spanCost               // the steady span and what it cost
	spanRSS  int64         // largest VmRSS sampled during span
	peakRSS  int64         // VmHWM of the whole run, start-up included
	lagEnd   int64         // doris_binlog_lag_seconds at the end of span
}

// seedIdle creates the tables, empty: an idle table's rows are all older
// than the input's start, so in `latest` mode they are never read.
func seedIdle(t *testing.T, ctx context.Context, s *sim, n int) {
	t.Helper()
	measure(t, fmt.Sprintf("create %d idle binlog tables", n), func() error {
		if err := s.exec(ctx, "CREATE DATABASE IF NOT EXISTS "+benchDB); err != nil {
			return err
		}
		for i := range n {
			if err := s.exec(ctx, mixedDDL(idleName(i), true)); err != nil {
				return err
			}
		}
		return nil
	})
}

// measureIdle seeds the idle tables and measures row k on them.
func measureIdle(t *testing.T, ctx context.Context, s *sim) idleResult {
	t.Helper()
	r := idleResult{tables: idleTableCount(t)}
	seedIdle(t, ctx, s, r.tables)
	s.row(t, fmt.Sprintf("doris_binlog latest, %d idle tables", r.tables), func() error { return r.run(t, ctx, s) })
	return r
}

// run starts the input on the idle tables and measures the span. The chain
// holds every table once the streaming gauge counts them all and the FE has
// planned two windows' worth of @incr queries since the start: the chain
// reads a window for every table before it takes the next, so the first
// window is then complete.
func (r *idleResult) run(t *testing.T, ctx context.Context, s *sim) error {
	addr := testnet.FreeAddr(t)
	cfg := multiConfig(s, idleInclude, addr, "scan_mode: latest", "binlog_poll_interval: 1s", "table_discovery_interval: 1h",
		fmt.Sprintf("skip_idle_tables: %v", idleSkip()))
	reqsStart, err := s.requestStats(ctx)
	if err != nil {
		return err
	}
	var (
		joinedAt        time.Time
		spanFrom        spanStart
		streaming, incr int64 // last seen while waiting for the join
	)
	began := time.Now()
	step := func(pid int) (bool, error) {
		switch {
		case joinedAt.IsZero():
			if time.Since(began) > idleJoinLimit {
				return true, fmt.Errorf("%d tables did not all join the window chain within %v: %d streaming, %d @incr queries",
					r.tables, idleJoinLimit, streaming, incr)
			}
			if streaming = scrapeMetric(addr, "doris_binlog_tables", `state="streaming"`); streaming < int64(r.tables) {
				return false, nil
			}
			now, err := s.requestStats(ctx)
			if err != nil {
				return true, err
			}
			if incr = now.FEIncrQueries - reqsStart.FEIncrQueries; incr < 2*int64(r.tables) {
				return false, nil
			}
			joinedAt = time.Now()
			r.joined = joinedAt.Sub(began)
			return false, nil
		case spanFrom.at.IsZero():
			if time.Since(joinedAt) < idleSteadySettle {
				return false, nil
			}
			var err error
			spanFrom, err = startSpan(t, ctx, s, pid)
			return false, err
		default:
			kb, err := procStatusKB(pid, "VmRSS")
			if err != nil {
				return true, err
			}
			r.spanRSS = max(r.spanRSS, kb*1024)
			if time.Since(spanFrom.at) < idleSteadyFor {
				return false, nil
			}
			r.spanCost, err = spanFrom.cost(t, ctx, s, pid)
			r.lagEnd = scrapeMetric(addr, "doris_binlog_lag_seconds", "")
			return true, err
		}
	}
	res, err := runSteps(t, ctx, cfg, "", step)
	r.peakRSS = res.peakRSS
	if err != nil {
		return err
	}
	if r.span == 0 {
		return fmt.Errorf("the input stopped before the idle span was measured")
	}
	return nil
}

// scrapeMetric reads one counter or gauge of the binary's json_api
// metrics, summed over the label sets that contain label (such as
// `state="streaming"`; "" for all); -1 when it does not answer (yet) or has
// no such metric.
func scrapeMetric(addr, name, label string) int64 {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	v, err := metricValue(data, name, label)
	if err != nil {
		return -1
	}
	return v
}

// metricValue sums metric name over its label sets that contain label, in a
// json_api answer, whose keys are `name{label="v",...}` (Benthos adds the
// component's label and path).
func metricValue(data []byte, name, label string) (int64, error) {
	var values map[string]json.RawMessage
	if err := json.Unmarshal(data, &values); err != nil {
		return 0, fmt.Errorf("metrics answer: %w", err)
	}
	var sum int64
	found := false
	for k, raw := range values {
		labels, ok := strings.CutPrefix(k, name+"{")
		if !ok && k != name || !strings.Contains(labels, label) {
			continue
		}
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil {
			return 0, fmt.Errorf("metric %s: %w", k, err)
		}
		sum, found = sum+v, true
	}
	if !found {
		return 0, fmt.Errorf("no metric %s{%s}", name, label)
	}
	return sum, nil
}

// feHTTP is the FE's HTTP API requests of s: its FE requests (stream loads
// excluded, as in Stats.FERequests) less its Flight RPCs.
func feHTTP(s dorissim.Stats) int64 {
	return s.FERequests() - sumCounts(s.FEFlight)
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// idleSkip is skip_idle_tables for row k: BENCH_SKIP_IDLE_TABLES=false
// measures the tables read every poll, for comparison; on by default, as
// in the input.
func idleSkip() bool { return os.Getenv("BENCH_SKIP_IDLE_TABLES") != "false" }

// tsoPerPoll is how many GET /api/tso one poll of the chain asks: the
// window end, and with skip_idle_tables the fence after the partition
// versions (docs/idle-tables.md).
func tsoPerPoll() int64 {
	if idleSkip() {
		return 2
	}
	return 1
}

// rows are row k's lines. Polls are counted by the FE's GET /api/tso, which
// the chain asks tsoPerPoll() times per window for all its tables.
func (r idleResult) rows() []row {
	secs := r.span.Seconds()
	rate := func(n int64) float64 { return float64(n) / secs }
	polls := r.reqs.HTTP["GET /api/tso"] / tsoPerPoll()
	perTablePoll := 0.0
	if polls > 0 {
		perTablePoll = float64(r.reqs.FEIncrQueries) / float64(polls) / float64(r.tables)
	}
	cpuRate := r.cpu.Seconds() / secs
	return []row{
		info(fmt.Sprintf("k. %d idle streaming tables, poll 1s, skip_idle_tables: %v: FE requests", r.tables, idleSkip()),
			fmt.Sprintf("%.1f req/s: HTTP %.1f/s, Flight %.1f/s, of which @incr %.1f/s (%.2f per table per poll, %.2f polls/s)",
				rate(r.reqs.FERequests()), rate(feHTTP(r.reqs)), rate(sumCounts(r.reqs.FEFlight)),
				rate(r.reqs.FEIncrQueries), perTablePoll, rate(polls))),
		info("   FE HTTP / FE Flight / BE Flight, per second", fmt.Sprintf("%s; %s; BE %s",
			perSecond(r.reqs.HTTP, r.span), perSecond(r.reqs.FEFlight, r.span), perSecond(r.reqs.BEFlight, r.span))),
		info(fmt.Sprintf("k. %d idle streaming tables: client CPU", r.tables),
			fmt.Sprintf("%.0f ms/s (%.3f ms/s per table); dorissim %.0f ms/s", cpuRate*1000, cpuRate*1000/float64(r.tables),
				r.simCPU.Seconds()/secs*1000)),
		info(fmt.Sprintf("k. %d idle streaming tables: RSS", r.tables),
			fmt.Sprintf("%.0f MB peak over the span, %.0f MB peak of the run; lag %d s at its end", mb(r.spanRSS), mb(r.peakRSS), r.lagEnd)),
		info("   steady span", fmt.Sprintf("%.0f s, from %.0f s after all %d tables joined the chain (%.1f s after start)",
			secs, idleSteadySettle.Seconds(), r.tables, r.joined.Seconds())),
	}
}

// TestIdleTablesBench runs only row k on a simulator of its own, e.g.
// BENCH=1 BENCH_IDLE_TABLES=100 go test -run TestIdleTablesBench ./tests/bench/.
// `make bench` measures it inside TestBench.
func TestIdleTablesBench(t *testing.T) {
	if os.Getenv("BENCH") != "1" {
		t.Skip("set BENCH=1 to run the idle tables row")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s := startSim(t)
	r := measureIdle(t, ctx, s)
	fmt.Println()
	fmt.Print(renderTable(r.rows()))
}

func TestMetricValue(t *testing.T) {
	text := `{"doris_binlog_tables{label=\"\",path=\"root.input\",state=\"streaming\"}":1000,
"doris_binlog_tables{label=\"\",path=\"root.input\",state=\"skipped\"}":3,
"doris_binlog_tables_other{label=\"\",path=\"root.input\",state=\"streaming\"}":7,
"doris_binlog_lag_seconds{label=\"\",path=\"root.input\"}":2,
"doris_binlog_window_seconds{label=\"\",path=\"root.input\"}":{"p50":1,"p90":2,"p99":3}}`
	for _, c := range []struct {
		name, label string
		want        int64
	}{{"doris_binlog_tables", `state="streaming"`, 1000}, {"doris_binlog_tables", "", 1003}, {"doris_binlog_lag_seconds", "", 2}} {
		if v, err := metricValue([]byte(text), c.name, c.label); err != nil || v != c.want {
			t.Errorf("%s{%s}: got %d %v, want %d", c.name, c.label, v, err, c.want)
		}
	}
	if _, err := metricValue([]byte(text), "doris_binlog_tables", `state="snapshotting"`); err == nil {
		t.Error("a missing label set was read")
	}
	if _, err := metricValue([]byte(text), "doris_binlog_window_seconds", ""); err == nil {
		t.Error("a timer was read as a number")
	}
	if _, err := metricValue([]byte("not json"), "x", ""); err == nil {
		t.Error("garbage accepted")
	}
}

func TestFEHTTPLeavesOutFlight(t *testing.T) {
	st := dorissim.Stats{
		HTTP:     map[string]int64{"GET /api/tso": 30, "PUT /api/_be/{db}/{table}/_stream_load": 5},
		FEFlight: map[string]int64{"GetFlightInfo": 3000, "Handshake": 2},
	}
	if n := feHTTP(st); n != 30 {
		t.Fatalf("feHTTP = %d, want 30", n)
	}
}
