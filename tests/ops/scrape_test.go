// Package ops tests what operators rely on: the prometheus exporter over a
// running pipeline, the shipped Grafana dashboard against what it exports,
// and a quiet log when the pipeline is healthy and idle.
package ops

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	_ "github.com/rpconnect-doris/rpconnect-doris/metrics/prometheus"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const (
	snapshotRows = 40
	binlogInsert = 5 // rows inserted after the snapshot, in one transaction
)

// pipeline is a running initial-mode stream over ops.orders with the
// prometheus exporter served by an HTTP test server.
type pipeline struct {
	srv     *dorissim.Server
	col     *harness.Collector
	metrics string // URL of /metrics
}

// startPipeline snapshots ops.orders, then inserts, updates and deletes rows
// and waits until every change was delivered.
func startPipeline(t *testing.T) *pipeline {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "ops", "orders", harness.TableOpts{Buckets: 4})
	wl := harness.NewWorkload(srv, "ops", "orders", 7)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := wl.Insert(ctx, snapshotRows); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // in a past Doris second: snapshot rows
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{
		Input:       harness.InputYAML(srv, "ops.orders", "scan_mode: initial", "request_tablet_size: 1"),
		Resources:   harness.MemoryCache,
		MetricsYAML: "prometheus: {}",
		HTTPMux:     mux,
	}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= snapshotRows })
	harness.Exec(t, srv,
		"INSERT INTO ops.orders (id, name, qty, amount) VALUES (1001, 'a', 1, 1.00), (1002, 'b', 2, 2.00), (1003, 'c', 3, 3.00), (1004, 'd', 4, 4.00), (1005, 'e', 5, 5.00)",
		"UPDATE ops.orders SET qty = 9 WHERE id = 1001",
		"DELETE FROM ops.orders WHERE id = 1002",
	)
	col.WaitFor(t, 60*time.Second, "the binlog changes", func(evs []harness.Event) bool {
		var ins, upd, del int
		for _, e := range evs {
			switch e.Operation {
			case "insert":
				ins++
			case "update", "update_after":
				upd++
			case "delete":
				del++
			}
		}
		return ins >= binlogInsert && upd >= 1 && del >= 1
	})
	return &pipeline{srv: srv, col: col, metrics: hs.URL + "/metrics"}
}

// scrape GETs /metrics in the text format and parses it with Prometheus's
// own parser.
func (p *pipeline) scrape(t *testing.T) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.metrics, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	buf := new(strings.Builder)
	if _, err := io.Copy(buf, io.LimitReader(resp.Body, 16<<20)); err != nil {
		t.Fatalf("scrape body: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape status %d: %s", resp.StatusCode, buf)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	return fams, buf.String()
}

// sum adds a family's values over the series whose labels include want.
func sum(f *dto.MetricFamily, want map[string]string) (float64, int) {
	var total float64
	var n int
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			if labels[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		n++
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total, n
}

func TestScrapeRunningPipeline(t *testing.T) {
	p := startPipeline(t)
	// The lag gauge follows the acked windows; give it one more poll.
	time.Sleep(1500 * time.Millisecond)
	fams, body := p.scrape(t)

	t.Run("promlint", func(t *testing.T) {
		problems, err := promlint.New(strings.NewReader(body)).Lint()
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range problems {
			t.Errorf("promlint: %s: %s", pr.Metric, pr.Text)
		}
	})

	get := func(t *testing.T, name string) *dto.MetricFamily {
		t.Helper()
		f := fams[name]
		if f == nil {
			t.Fatalf("%s is not exported", name)
		}
		return f
	}
	t.Run("lag", func(t *testing.T) {
		lag, n := sum(get(t, "doris_binlog_lag_seconds"), nil)
		if n != 1 || lag < 0 || lag > 60 {
			t.Errorf("doris_binlog_lag_seconds = %v over %d series, want one series between 0 and 60 s while caught up", lag, n)
		}
	})
	t.Run("rows by operation", func(t *testing.T) {
		rows := get(t, "doris_binlog_rows_total")
		for _, c := range []struct {
			labels   map[string]string
			min, max float64
		}{
			{map[string]string{"table": "ops.orders", "phase": "snapshot", "operation": "read"}, snapshotRows, snapshotRows},
			{map[string]string{"table": "ops.orders", "phase": "binlog", "operation": "insert"}, binlogInsert, binlogInsert},
			{map[string]string{"table": "ops.orders", "phase": "binlog", "operation": "delete"}, 1, 1},
		} {
			if v, _ := sum(rows, c.labels); v < c.min || v > c.max {
				t.Errorf("doris_binlog_rows_total%v = %v, want %v", c.labels, v, c.min)
			}
		}
		if v, _ := sum(rows, map[string]string{"phase": "binlog"}); v < binlogInsert+2 {
			t.Errorf("binlog rows = %v, want at least %d (inserts, the update, the delete)", v, binlogInsert+2)
		}
	})
	t.Run("snapshot progress", func(t *testing.T) {
		table := map[string]string{"table": "ops.orders"}
		total, _ := sum(get(t, "doris_binlog_snapshot_splits"), table)
		done, _ := sum(get(t, "doris_binlog_snapshot_splits_done"), table)
		if total != 4 || done != total {
			t.Errorf("snapshot splits done %v of %v, want 4 of 4 (one tablet per split, 4 buckets)", done, total)
		}
		tables := get(t, "doris_binlog_tables")
		if n, _ := sum(tables, map[string]string{"state": "streaming"}); n != 1 {
			t.Errorf("doris_binlog_tables{state=streaming} = %v, want 1", n)
		}
		if n, _ := sum(tables, map[string]string{"state": "snapshotting"}); n != 0 {
			t.Errorf("doris_binlog_tables{state=snapshotting} = %v after the snapshot, want 0", n)
		}
	})
	t.Run("window duration", func(t *testing.T) {
		if n, _ := sum(get(t, "doris_binlog_window_seconds"), nil); n < 1 {
			t.Errorf("doris_binlog_window_seconds has %v observations, want at least one window", n)
		}
		if v, n := sum(get(t, "doris_binlog_expired_gaps_total"), map[string]string{"table": "ops.orders"}); v != 0 || n != 1 {
			t.Errorf("doris_binlog_expired_gaps_total{table=ops.orders} = %v over %d series, want one series at 0", v, n)
		}
	})
	t.Run("benthos input", func(t *testing.T) {
		// A stream builder's consumer function has no output metrics; the
		// binary test scrapes those.
		delivered := float64(len(p.col.Events()))
		if in, _ := sum(get(t, "input_received_total"), map[string]string{"path": "root.input"}); in < delivered {
			t.Errorf("input_received_total %v, want at least the %v messages delivered", in, delivered)
		}
		if up, _ := sum(get(t, "input_connection_up_total"), nil); up < 1 {
			t.Errorf("input_connection_up_total = %v", up)
		}
		if n, _ := sum(get(t, "input_latency_seconds"), nil); n < 1 {
			t.Errorf("input_latency_seconds has no observations")
		}
	})
	t.Run("runtime", func(t *testing.T) {
		for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
			get(t, name)
		}
	})
}
