package ops

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// scrapeLabels are added by Prometheus itself, not by the exporter.
var scrapeLabels = map[string]bool{"instance": true, "job": true, "le": true}

var (
	promqlWords = map[string]bool{
		"sum": true, "max": true, "min": true, "avg": true, "count": true, "rate": true, "irate": true,
		"increase": true, "histogram_quantile": true, "by": true, "without": true, "on": true,
		"ignoring": true, "group_left": true, "group_right": true, "and": true, "or": true, "unless": true,
		"bool": true, "offset": true, "label_values": true, "clamp_min": true, "topk": true,
	}
	reStrings   = regexp.MustCompile(`"[^"]*"`)
	reMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	reRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	reVars      = regexp.MustCompile(`\$\w+`)
	reGrouping  = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	reIdent     = regexp.MustCompile(`[a-zA-Z_][a-zA-Z0-9_]*`)
	reLabelVals = regexp.MustCompile(`label_values\(\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)`)
)

// queries returns every PromQL text in the dashboard: panel targets and
// template variable queries.
func queries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(harness.ModuleRoot(), "resources", "grafana", "rpconnect-doris.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if s, ok := c.(string); ok && (k == "expr" || (k == "query" && strings.Contains(s, "("))) {
					out = append(out, s)
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	return out
}

// metricNames returns the metric names and the grouping labels a query uses.
func metricNames(q string) (names, labels []string) {
	for _, m := range reLabelVals.FindAllStringSubmatch(q, -1) {
		names = append(names, m[1])
		labels = append(labels, m[2])
	}
	q = reLabelVals.ReplaceAllString(q, "")
	q = reStrings.ReplaceAllString(q, "")
	for _, m := range reGrouping.FindAllStringSubmatch(q, -1) {
		for _, l := range strings.Split(m[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
	}
	q = reGrouping.ReplaceAllString(q, "")
	q = reMatchers.ReplaceAllString(q, "")
	q = reRanges.ReplaceAllString(q, "")
	q = reVars.ReplaceAllString(q, "")
	for _, id := range reIdent.FindAllString(q, -1) {
		if !promqlWords[id] {
			names = append(names, id)
		}
	}
	return names, labels
}

// family maps a series name to its family: histogram and summary series
// carry _bucket, _sum and _count suffixes.
func family(fams map[string]*dto.MetricFamily, name string) *dto.MetricFamily {
	if f := fams[name]; f != nil {
		return f
	}
	for _, suf := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suf); ok {
			if f := fams[base]; f != nil && (f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY) {
				return f
			}
		}
	}
	return nil
}

// checkDashboard fails for every metric the dashboard queries that the
// scrape does not hold, and for grouping labels no series of it carries.
func checkDashboard(t *testing.T, fams map[string]*dto.MetricFamily) {
	qs := queries(t)
	if len(qs) < 10 {
		t.Fatalf("the dashboard has %d queries, want its 10+ panels' queries", len(qs))
	}
	seen := map[string]bool{}
	for _, q := range qs {
		names, labels := metricNames(q)
		if len(names) == 0 {
			t.Errorf("query %q names no metric", q)
		}
		for _, n := range names {
			seen[n] = true
			f := family(fams, n)
			if f == nil {
				t.Errorf("query %q uses %s, which the exporter does not produce", q, n)
				continue
			}
			have := map[string]bool{}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					have[l.GetName()] = true
				}
			}
			for _, l := range labels {
				if !have[l] && !scrapeLabels[l] {
					t.Errorf("query %q groups %s by %q, which none of its series carries", q, n, l)
				}
			}
		}
	}
	var list []string
	for n := range seen {
		list = append(list, n)
	}
	sort.Strings(list)
	t.Logf("dashboard metrics: %s", strings.Join(list, ", "))
	for _, want := range []string{"doris_binlog_lag_seconds", "doris_binlog_rows_total", "doris_binlog_snapshot_splits_done", "doris_binlog_tables",
		"doris_binlog_window_seconds_bucket", "doris_binlog_expired_gaps_total", "output_error_total",
		"doris_binlog_retention_headroom_seconds", "doris_binlog_retention_headroom_min_seconds", "doris_binlog_snapshot_splits"} {
		if !seen[want] {
			t.Errorf("the dashboard has no panel on %s", want)
		}
	}
}

// TestDashboardCheckCanFail runs the name check on a query the exporter
// cannot satisfy.
func TestDashboardCheckCanFail(t *testing.T) {
	names, labels := metricNames(`sum by (table, operation) (rate(doris_binlog_rowz_total{phase="binlog"}[$__rate_interval]))`)
	if len(names) != 1 || names[0] != "doris_binlog_rowz_total" || len(labels) != 2 {
		t.Fatalf("metricNames = %v %v", names, labels)
	}
	fams := map[string]*dto.MetricFamily{}
	if family(fams, "doris_binlog_rowz_total") != nil {
		t.Fatal("an unknown metric was found")
	}
}
