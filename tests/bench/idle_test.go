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

// idleRun is one run of the input on the idle tables: with the rule that
// skips idle tables' @incr queries (rule) or reading every table each poll.
type idleRun struct {
	tables   int
	rule     bool
	joined   time.Duration // process start to the chain holding every table
	spanCost               // the steady span and what it cost
	spanRSS  int64         // largest VmRSS sampled during span
	peakRSS  int64         // VmHWM of the whole run, start-up included
	lagEnd   int64         // doris_binlog_lag_seconds at the end of span
}

// seedIdle creates tables [from, to), empty: an idle table's rows are all
// older than the input's start, so in `latest` mode they are never read.
func seedIdle(t *testing.T, ctx context.Context, s *sim, from, to int) {
	t.Helper()
	measure(t, fmt.Sprintf("create %d idle binlog tables", to-from), func() error {
		if err := s.exec(ctx, "CREATE DATABASE IF NOT EXISTS "+benchDB); err != nil {
			return err
		}
		for i := from; i < to; i++ {
			if err := s.exec(ctx, mixedDDL(idleName(i), true)); err != nil {
				return err
			}
		}
		return nil
	})
}

// idleRuleSetting is the input's field line that turns the idle-table rule
// on or off.
func idleRuleSetting(on bool) string { return fmt.Sprintf("%s: %t", idleRuleField, on) }

// run starts the input on the idle tables and measures the span. The chain
// holds every table once the streaming gauge counts them all, the FE has
// planned a window's worth of @incr queries since the start (the first
// window reads every table, the rule or not) and two more polls went by.
func (r *idleRun) run(t *testing.T, ctx context.Context, s *sim) error {
	addr := testnet.FreeAddr(t)
	cfg := multiConfig(s, idleInclude, addr, "scan_mode: latest", "binlog_poll_interval: 1s", "table_discovery_interval: 1h",
		idleRuleSetting(r.rule))
	reqsStart, err := s.requestStats(ctx)
	if err != nil {
		return err
	}
	var (
		joinedAt        time.Time
		spanFrom        spanStart
		streaming, incr int64 // last seen while waiting for the join
		pollsAtFirst    int64 // GET /api/tso once the first window was read; -1 before
	)
	pollsAtFirst = -1
	began := time.Now()
	joinLimit := idleJoinLimit * time.Duration(max(1, r.tables/idleTablesDefault))
	step := func(pid int) (bool, error) {
		switch {
		case joinedAt.IsZero():
			if time.Since(began) > joinLimit {
				return true, fmt.Errorf("%d tables did not all join the window chain within %v: %d streaming, %d @incr queries",
					r.tables, joinLimit, streaming, incr)
			}
			if streaming = scrapeMetric(addr, "doris_binlog_tables", `state="streaming"`); streaming < int64(r.tables) {
				return false, nil
			}
			now, err := s.requestStats(ctx)
			if err != nil {
				return true, err
			}
			if incr = now.FEIncrQueries - reqsStart.FEIncrQueries; incr < int64(r.tables) {
				return false, nil
			}
			polls := now.HTTP["GET /api/tso"]
			if pollsAtFirst < 0 {
				pollsAtFirst = polls
			}
			if polls < pollsAtFirst+2 {
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

// polls is how many windows the chain read over the span: it asks the FE
// for a TSO once per window, for all its tables, and with the idle-table
// rule a second time, as the fence after the partition versions
// (docs/idle-tables.md).
func (r idleRun) polls() int64 {
	if r.rule {
		return r.reqs.HTTP["GET /api/tso"] / 2
	}
	return r.reqs.HTTP["GET /api/tso"]
}

// feRequests is everything the FE served over the span: HTTP, Flight and
// MySQL statements (the rule's version query may take either path).
func (r idleRun) feRequests() int64 { return r.reqs.FERequests() + r.reqs.MySQLStatements }

// perPoll is n divided by the span's polls.
func (r idleRun) perPoll(n int64) float64 {
	if r.polls() == 0 {
		return 0
	}
	return float64(n) / float64(r.polls())
}

// cpuPerTable is the client's CPU in ms per second per table.
func (r idleRun) cpuPerTable() float64 {
	return r.cpu.Seconds() * 1000 / r.span.Seconds() / float64(r.tables)
}

// rows are one run's lines, named by name ("k." or "k (rule off)").
func (r idleRun) rows(name string) []row {
	secs := r.span.Seconds()
	rate := func(n int64) float64 { return float64(n) / secs }
	cpuRate := r.cpu.Seconds() / secs
	return []row{
		info(fmt.Sprintf("%s %d idle streaming tables, poll 1s: FE requests", name, r.tables),
			fmt.Sprintf("%.1f req/s: HTTP %.1f/s, Flight %.1f/s, MySQL %.1f/s, of which @incr %.1f/s (%.2f per table per poll, %.2f polls/s)",
				rate(r.feRequests()), rate(feHTTP(r.reqs)), rate(sumCounts(r.reqs.FEFlight)), rate(r.reqs.MySQLStatements),
				rate(r.reqs.FEIncrQueries), r.perPoll(r.reqs.FEIncrQueries)/float64(r.tables), rate(r.polls()))),
		info("   FE HTTP / FE Flight / BE Flight, per second", fmt.Sprintf("%s; %s; BE %s",
			perSecond(r.reqs.HTTP, r.span), perSecond(r.reqs.FEFlight, r.span), perSecond(r.reqs.BEFlight, r.span))),
		info(fmt.Sprintf("%s %d idle streaming tables: client CPU", name, r.tables),
			fmt.Sprintf("%.0f ms/s (%.4f ms/s per table); dorissim %.0f ms/s", cpuRate*1000, r.cpuPerTable(),
				r.simCPU.Seconds()/secs*1000)),
		info(fmt.Sprintf("%s %d idle streaming tables: RSS", name, r.tables),
			fmt.Sprintf("%.0f MB peak over the span, %.0f MB peak of the run; lag %d s at its end", mb(r.spanRSS), mb(r.peakRSS), r.lagEnd)),
		info("   steady span", fmt.Sprintf("%.0f s, from %.0f s after all %d tables joined the chain (%.1f s after start)",
			secs, idleSteadySettle.Seconds(), r.tables, r.joined.Seconds())),
	}
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
