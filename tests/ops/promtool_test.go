package ops

import (
	"bytes"
	"context"
	"math"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// promtoolCheck runs `promtool check metrics` (Prometheus's own linter, in
// Debian's prometheus package) over a scrape. Where promtool is not
// installed the check is skipped, saying how to get it; promlint, the
// library it is built on, runs over the same scrape either way.
func promtoolCheck(t *testing.T, body string) {
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus, or a Prometheus release tarball): `promtool check metrics` over the binary's scrape is skipped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out.String())
	}
	if strings.TrimSpace(out.String()) != "" {
		t.Errorf("promtool check metrics reported:\n%s", out.String())
	}
}

// checkHelp: every doris_binlog family's HELP says what it means and its
// unit, not only that Benthos reported it.
func checkHelp(t *testing.T, fams map[string]*dto.MetricFamily) {
	n := 0
	for name, f := range fams {
		if !strings.HasPrefix(name, "doris_binlog_") {
			continue
		}
		n++
		if help := f.GetHelp(); strings.HasPrefix(help, "Benthos ") || !strings.Contains(help, "Unit: ") {
			t.Errorf("%s: HELP %q does not say what it means and its unit", name, help)
		}
	}
	if n < 8 {
		t.Errorf("only %d doris_binlog families in the scrape", n)
	}
}

// checkHeadroom: a streaming table with the default binlog.ttl_seconds
// (86400) has almost all of it left, and the minimum is that table's.
func checkHeadroom(t *testing.T, fams map[string]*dto.MetricFamily) {
	per, n := sum(fams["doris_binlog_retention_headroom_seconds"], map[string]string{"table": "ops.items"})
	if n != 1 || per > 86400 || per < 86400-60 {
		t.Errorf("doris_binlog_retention_headroom_seconds{table=ops.items} = %v over %d series, want a little under 86400 s while caught up", per, n)
	}
	least, n := sum(fams["doris_binlog_retention_headroom_min_seconds"], nil)
	if n != 1 || least != per {
		t.Errorf("doris_binlog_retention_headroom_min_seconds = %v over %d series, want the only table's %v", least, n, per)
	}
	// Both are counted from the chain's start, the table's position.
	if lag, _ := sum(fams["doris_binlog_lag_seconds"], nil); math.Abs(86400-lag-per) > 5 {
		t.Errorf("headroom %v s and lag %v s do not add up to the TTL of 86400 s", per, lag)
	}
}
