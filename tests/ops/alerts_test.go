package ops

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// readmeAlertRules is the alert rules block of docs/operating.md's
// "Dashboard and alerts" section.
func readmeAlertRules(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(harness.ModuleRoot(), "docs", "operating.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "## Dashboard and alerts")
	if !ok {
		t.Fatal("docs/operating.md has no Dashboard and alerts section")
	}
	_, block, ok := strings.Cut(after, "```yaml\ngroups:")
	block, _, closed := strings.Cut(block, "```")
	if !ok || !closed {
		t.Fatal("the Dashboard and alerts section has no yaml block of rule groups")
	}
	return "groups:" + block
}

var reExpr = regexp.MustCompile(`(?m)^\s*expr:\s*(.+)$`)

// checkAlerts: docs/operating.md's alert rules are valid Prometheus rules
// (promtool check rules, where installed) and query only metrics the
// binary exports, with labels its series carry; the retention alerts use
// the headroom.
func checkAlerts(t *testing.T, fams map[string]*dto.MetricFamily) {
	rules := readmeAlertRules(t)
	exprs := reExpr.FindAllStringSubmatch(rules, -1)
	if len(exprs) < 4 {
		t.Fatalf("%d alert expressions in docs/operating.md, want its 4+ rules:\n%s", len(exprs), rules)
	}
	for _, m := range exprs {
		names, labels := metricNames(m[1])
		for _, n := range names {
			if n == "up" { // Prometheus's own
				continue
			}
			f := family(fams, n)
			if f == nil {
				t.Errorf("alert %q uses %s, which the exporter does not produce", m[1], n)
				continue
			}
			have := map[string]bool{}
			for _, s := range f.GetMetric() {
				for _, l := range s.GetLabel() {
					have[l.GetName()] = true
				}
			}
			for _, l := range labels {
				if !have[l] && !scrapeLabels[l] {
					t.Errorf("alert %q groups %s by %q, which none of its series carries", m[1], n, l)
				}
			}
		}
	}
	for _, want := range []string{"doris_binlog_retention_headroom_seconds", "doris_binlog_retention_headroom_min_seconds", "doris_binlog_lag_seconds"} {
		if !strings.Contains(rules, want) {
			t.Errorf("no alert of docs/operating.md uses %s", want)
		}
	}
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus): `promtool check rules` over docs/operating.md's alert rules is skipped")
	}
	file := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(file, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "check", "rules", file)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool check rules on docs/operating.md's alert rules: %v\n%s", err, out.String())
	}
}
