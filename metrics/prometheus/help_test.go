package prometheus

import (
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/internal/metrichelp"

	// The components describe their metrics when their packages load, as
	// in the binary.
	_ "github.com/rpconnect-doris/rpconnect-doris/input"
	_ "github.com/rpconnect-doris/rpconnect-doris/kafka"
)

// Every metric of doris_binlog and kafka_franz is exported with the HELP
// its component wrote (what it means and its unit), Benthos's own metrics
// with theirs, and only a name nobody described with the generic line.
func TestHelpSaysWhatEachMetricMeans(t *testing.T) {
	e, err := New(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, name := range metrichelp.Names() {
		if strings.HasPrefix(name, "doris_binlog_") || strings.HasPrefix(name, "doris_load_") || strings.HasPrefix(name, "kafka_franz_") {
			ours = append(ours, name)
			e.NewGaugeCtor(name)().Set(1)
		}
	}
	for _, must := range []string{"doris_binlog_rows_total", "doris_binlog_lag_seconds", "doris_binlog_expired_gaps_total",
		"doris_binlog_retention_headroom_seconds", "doris_binlog_retention_headroom_min_seconds",
		"doris_binlog_snapshot_splits", "doris_binlog_snapshot_splits_done", "kafka_franz_transactions_committed"} {
		if _, ok := metrichelp.Text(must); !ok {
			t.Errorf("%s has no description", must)
		}
	}
	e.NewCounterCtor("input_received", "label", "path")("in", "root.input").Incr(1)
	e.NewCounterCtor("some_plugin_thing")().Incr(1)
	// Every name as a gauge: HELP depends on the Benthos name only (the
	// binary's scrape in tests/ops lints the real kinds).
	fams, _ := scrape(t, e)
	for _, name := range ours {
		text, _ := metrichelp.Text(name)
		f := fams[sanitize(name)]
		if f == nil {
			t.Errorf("%s is not exported", name)
			continue
		}
		if f.GetHelp() != text || !strings.Contains(text, "Unit: ") {
			t.Errorf("%s: HELP %q, want its description with its unit %q", name, f.GetHelp(), text)
		}
	}
	if got := fams["input_received_total"].GetHelp(); got != benthosHelp["input_received"] {
		t.Errorf("input_received_total: HELP %q, want Benthos's meaning", got)
	}
	if got := fams["some_plugin_thing_total"].GetHelp(); got != "Benthos counter some_plugin_thing." {
		t.Errorf("an undescribed metric: HELP %q", got)
	}
}
