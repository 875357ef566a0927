// Package security feeds the doris_binlog input bad tables, bad servers and
// bad answers, and runs it over TLS: every failure names the field, table or
// server, never leaks the password and never moves an offset.
package security

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const db = "sec"

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// inputYAML is a doris_binlog input with an explicit password; extra lines
// are added as fields.
func inputYAML(fenodes, table, password string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "doris_binlog:\n  fenodes: %s\n  table_identifier: %s\n  username: root\n  password: %q\n  binlog_poll_interval: 1s\n  checkpoint_cache: cp\n  request_connect_timeout: 5s\n  request_retries: 2\n",
		fenodes, table, password)
	for _, e := range extra {
		b.WriteString("  " + e + "\n")
	}
	return b.String()
}

// failure is a stream that is expected to fail.
type failure struct {
	logs    *harness.LogCapture
	metrics *harness.MetricsCapture
	col     *harness.Collector
	dir     string // file cache directory
	run     *harness.Running
}

// runFailing starts in on a fresh file cache, waits until a warn- or error-level
// line matching re is logged, and stops the stream.
func runFailing(t *testing.T, in, re string) *failure {
	t.Helper()
	f := &failure{logs: &harness.LogCapture{}, metrics: &harness.MetricsCapture{}, col: &harness.Collector{}, dir: t.TempDir()}
	return f.rerun(t, in, re)
}

// rerun is runFailing on f's existing cache.
func (f *failure) rerun(t *testing.T, in, re string) *failure {
	t.Helper()
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.FileCache(f.dir), Logs: f.logs, Metrics: f.metrics}, f.col)
	pat := regexp.MustCompile(re)
	deadline := time.Now().Add(45 * time.Second)
	for !f.logged(t, pat) {
		if time.Now().After(deadline) {
			t.Fatalf("no error matching %q within 45s; log:\n%s", re, f.logs.All())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Let it retry a while: retries must not store anything either.
	time.Sleep(1500 * time.Millisecond)
	if err := f.run.Stop(15 * time.Second); err != nil {
		t.Logf("stopping the failed stream: %v", err)
	}
	return f
}

func (f *failure) logged(t *testing.T, pat *regexp.Regexp) bool {
	for _, l := range f.logs.Lines(slog.LevelWarn, "") {
		if pat.MatchString(l.Text) {
			t.Logf("logged: %s %s", l.Level, l.Text)
			return true
		}
	}
	return false
}

// assertClean checks what every failure must hold: nothing delivered, no
// secret in logs or metric names, and the checkpoint files as they were.
func (f *failure) assertClean(t *testing.T, before map[string]string, secrets ...string) {
	t.Helper()
	if evs := f.col.Events(); len(evs) != 0 {
		t.Fatalf("a failing stream delivered %d events", len(evs))
	}
	all := f.logs.All()
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if strings.Contains(all, s) {
			t.Fatalf("the log contains the password %q:\n%s", s, all)
		}
		for _, n := range f.metrics.Names() {
			if strings.Contains(n, s) {
				t.Fatalf("metric %s contains the password", n)
			}
		}
	}
	if after := cacheFiles(t, f.dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the checkpoint moved:\nbefore %v\nafter  %v", before, after)
	}
}

// cacheFiles reads every file of a file cache directory.
func cacheFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}
