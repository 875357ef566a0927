package ops

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// binaryScrape runs rpconnect-doris with a config that has no metrics
// section, waits until it wrote every snapshot row, and scrapes its /metrics.
func binaryScrape(t *testing.T) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "ops", "items", harness.TableOpts{Buckets: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := harness.NewWorkload(srv, "ops", "items", 3).Insert(ctx, 25); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	addr := testnet.FreeAddr(t)
	in := harness.InputYAML(srv, "ops.items", "scan_mode: initial")
	var conf strings.Builder
	fmt.Fprintf(&conf, "http:\n  address: %s\nlogger:\n  level: WARN\n", addr)
	conf.WriteString("input:\n")
	for _, line := range strings.Split(strings.TrimRight(in, "\n"), "\n") {
		conf.WriteString("  " + line + "\n")
	}
	conf.WriteString("pipeline:\n  processors:\n    - mapping: 'root = this'\n")
	fmt.Fprintf(&conf, "output:\n  file:\n    path: %q\n    codec: lines\n", out)
	conf.WriteString(harness.MemoryCache)
	confPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(confPath, []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN"), "-c", confPath)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(out)
		if bytes.Count(b, []byte{'\n'}) >= 25 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("rpconnect-doris exited: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the snapshot was not written within 60s\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Scrape once the first binlog window after the snapshot was timed.
	p := &pipeline{metrics: "http://" + addr + "/metrics"}
	for {
		fams, body := p.scrape(t)
		if f := fams["doris_binlog_window_seconds"]; f != nil {
			if n, _ := sum(f, nil); n > 0 {
				return fams, body
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no binlog window was timed within 60s\n%s", logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestBinaryServesPrometheusByDefault checks that rpconnect-doris, with no
// metrics section in its config, serves Prometheus metrics on /metrics,
// including the Benthos output metrics, and that they pass promlint.
func TestBinaryServesPrometheusByDefault(t *testing.T) {
	fams, body := binaryScrape(t)
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range problems {
		t.Errorf("promlint: %s: %s", pr.Metric, pr.Text)
	}
	for name, min := range map[string]float64{"output_sent_total": 25, "input_received_total": 25, "doris_binlog_rows_total": 25} {
		f := fams[name]
		if f == nil {
			t.Errorf("%s is not exported", name)
			continue
		}
		if v, _ := sum(f, nil); v < min {
			t.Errorf("%s = %v, want at least %v", name, v, min)
		}
	}
	if f := fams["output_error_total"]; f == nil {
		t.Error("output_error_total is not exported")
	} else if v, _ := sum(f, nil); v != 0 {
		t.Errorf("output_error_total = %v", v)
	}
	t.Run("dashboard", func(t *testing.T) { checkDashboard(t, fams) })
	t.Run("promtool", func(t *testing.T) { promtoolCheck(t, body) })
	t.Run("help", func(t *testing.T) { checkHelp(t, fams) })
	t.Run("headroom", func(t *testing.T) { checkHeadroom(t, fams) })
	t.Run("alerts", func(t *testing.T) { checkAlerts(t, fams) })
}
