package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

func rpconnect(t *testing.T) string {
	return harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN")
}

func runBin(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, rpconnect(t), args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestBinaryListsInput(t *testing.T) {
	out, err := runBin(t, "", "list", "inputs")
	if err != nil || !strings.Contains(out, "doris_binlog") {
		t.Fatalf("list inputs: %v\n%s", err, out)
	}
}

// TestShippedConfigsLint lints every config in config/ with its resources.
func TestShippedConfigsLint(t *testing.T) {
	root := harness.ModuleRoot()
	files, err := filepath.Glob(filepath.Join(root, "config", "*.yaml"))
	if err != nil || len(files) < 5 {
		t.Fatalf("configs: %v %v", files, err)
	}
	for _, f := range files {
		out, err := runBin(t, root, "lint", "-r", "resources/offsets_memory_cache.yaml", f)
		if err != nil {
			t.Errorf("lint %s: %v\n%s", filepath.Base(f), err, out)
		}
	}
}

// TestBadConfigsFailLintNamingTheField lints broken configs with the binary.
func TestBadConfigsFailLintNamingTheField(t *testing.T) {
	cases := map[string]string{
		"scan_mode: bogus":                                                                         "scan_mode",
		"binlog_increment_type: everything":                                                        "binlog_increment_type",
		"scan_mode: initial\n    use_flight_sql: false":                                            "use_flight_sql",
		"binlog_poll_interval: 500ms":                                                              "binlog_poll_interval",
		"scan_mode: latest\n    filter_query: \"id > 1\"":                                          "filter_query",
		"scan_timestamp: \"2026-13-01 00:00:00\"\n    scan_mode: from-timestamp":                   "scan_timestamp",
		"scan_mode: latest\n    binlog_merge_updates: true\n    binlog_ignore_update_before: true": "binlog_ignore_update_before conflict",
		"scan_mode: latest\n    binlog_filter: \"id > 1; DROP TABLE t\"":                           "binlog_filter",
	}
	dir := t.TempDir()
	for extra, field := range cases {
		cfg := "input:\n  doris_binlog:\n    fenodes: 127.0.0.1:8030\n    table_identifier: demo.orders\n    username: root\n    checkpoint_cache: doris_offsets\n    " + extra + "\noutput:\n  drop: {}\n"
		path := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := runBin(t, harness.ModuleRoot(), "lint", "-r", "resources/offsets_memory_cache.yaml", path)
		if err == nil || !strings.Contains(out, field) {
			t.Errorf("lint of %q: err %v, want a message naming %s, got:\n%s", extra, err, field, out)
		}
	}
}

// TestEchoHidesPassword checks that `echo` never prints the password.
func TestEchoHidesPassword(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	cfg := "input:\n  doris_binlog:\n    fenodes: 127.0.0.1:8030\n    table_identifier: demo.orders\n    username: root\n    password: hunter2-very-secret\noutput:\n  drop: {}\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runBin(t, dir, "echo", path)
	if err != nil {
		t.Fatalf("echo: %v\n%s", err, out)
	}
	if strings.Contains(out, "hunter2") {
		t.Fatalf("echo printed the password:\n%s", out)
	}
}
