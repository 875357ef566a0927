package prometheus

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape serves e's handler once and parses the text format.
func scrape(t *testing.T, e *Exporter) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	e.HandlerFunc()(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape status %d: %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing the scrape: %v\n%s", err, body)
	}
	return fams, body
}

func lint(t *testing.T, body string) {
	t.Helper()
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatalf("promlint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

func TestBenthosNamesBecomePrometheusNames(t *testing.T) {
	e, err := New(Options{GoMetrics: true, ProcessMetrics: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.NewCounterCtor("input_received", "label", "path")("in", "root.input").Incr(3)
	e.NewCounterCtor("doris_binlog_rows_total", "phase", "operation")("binlog", "insert").Incr(5)
	e.NewGaugeCtor("doris_binlog_lag_seconds")().Set(7)
	e.NewTimerCtor("output_latency_ns", "label", "path")("out", "root.output").Timing(1_500_000_000)
	e.NewTimerCtor("doris_binlog_window_seconds")().Timing(250_000_000)

	fams, body := scrape(t, e)
	lint(t, body)
	if got := fams["input_received_total"].GetMetric()[0].GetCounter().GetValue(); got != 3 {
		t.Errorf("input_received_total = %v, want 3", got)
	}
	if got := fams["doris_binlog_rows_total"].GetMetric()[0].GetCounter().GetValue(); got != 5 {
		t.Errorf("doris_binlog_rows_total = %v, want 5", got)
	}
	if got := fams["doris_binlog_lag_seconds"].GetMetric()[0].GetGauge().GetValue(); got != 7 {
		t.Errorf("doris_binlog_lag_seconds = %v, want 7", got)
	}
	h := fams["output_latency_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 1 || h.GetSampleSum() != 1.5 {
		t.Errorf("output_latency_seconds count %d sum %v, want 1 and 1.5 seconds", h.GetSampleCount(), h.GetSampleSum())
	}
	if fams["doris_binlog_window_seconds"].GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("doris_binlog_window_seconds is %v", fams["doris_binlog_window_seconds"].GetType())
	}
	for _, want := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if fams[want] == nil {
			t.Errorf("collector metric %s missing", want)
		}
	}
}

func TestSharedVectorsAndConflicts(t *testing.T) {
	e, err := New(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two components asking for the same metric share one vector.
	e.NewCounterCtor("output_sent", "label", "path")("a", "root.output").Incr(1)
	e.NewCounterCtor("output_sent", "label", "path")("a", "root.output").Incr(2)
	// The same name with other labels is dropped, not a panic.
	e.NewCounterCtor("output_sent", "other")("x").Incr(10)
	e.NewGaugeCtor("output_sent_total")().Set(4)
	// Counters cannot go down.
	e.NewCounterCtor("output_sent", "label", "path")("a", "root.output").Incr(-5)

	fams, body := scrape(t, e)
	lint(t, body)
	ms := fams["output_sent_total"].GetMetric()
	if len(ms) != 1 || ms[0].GetCounter().GetValue() != 3 {
		t.Fatalf("output_sent_total = %v, want one series at 3", ms)
	}
	if fams["go_goroutines"] != nil || fams["process_cpu_seconds_total"] != nil {
		t.Error("runtime collectors exported while disabled")
	}
}

func TestSummaryAndPrefix(t *testing.T) {
	e, err := New(Options{Prefix: "rpcd", Timing: timingSummary, Objectives: map[float64]float64{0.5: 0.05, 0.99: 0.001}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tm := e.NewTimerCtor("processor_latency_ns", "label", "path")("m", "root.pipeline.processors.0")
	for i := 1; i <= 100; i++ {
		tm.Timing(int64(i) * 10_000_000) // 10 ms .. 1 s
	}
	fams, body := scrape(t, e)
	lint(t, body)
	f := fams["rpcd_processor_latency_seconds"]
	if f.GetType() != dto.MetricType_SUMMARY {
		t.Fatalf("rpcd_processor_latency_seconds missing or not a summary: %v\n%s", f, body)
	}
	s := f.GetMetric()[0].GetSummary()
	if s.GetSampleCount() != 100 {
		t.Errorf("count %d, want 100", s.GetSampleCount())
	}
	for _, q := range s.GetQuantile() {
		if q.GetQuantile() == 0.5 && (q.GetValue() < 0.45 || q.GetValue() > 0.56) {
			t.Errorf("median %v s, want about 0.5 s", q.GetValue())
		}
	}
}

func TestConfigErrors(t *testing.T) {
	cases := map[string]string{
		"prefix: \"9bad\"":            "prefix",
		"prefix: \"a-b\"":             "prefix",
		"histogram_buckets: [1, 0.5]": "strictly increasing",
		"timing_type: summary\nsummary_objectives: [{quantile: 1.5, error: 0.01}]": "summary_objectives[0]",
	}
	for yaml, want := range cases {
		conf, err := Spec().ParseYAML(yaml, nil)
		if err != nil {
			t.Fatalf("%s: parse: %v", yaml, err)
		}
		o, err := optionsFromConfig(conf)
		if err == nil {
			_, err = New(o, nil)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", yaml, err, want)
		}
	}
}
