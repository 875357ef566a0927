package security

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

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// Secrets that the configs below carry in jdbc_url (user info, parameter
// values, a malformed parameter, a URL without the jdbc prefix) and in the
// password fields. None may appear in anything the binary prints.
var binarySecrets = []string{
	"S3cretUserInfo", "S3cretParam", "p%zzword", "zzword", "S3cretNoPrefix", "S3cretPasswordField",
	"S3cretDorisPw", "S3cretDebugParam", "S3cretCacheParam",
}

func rpconnectBin(t *testing.T) string {
	return harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN")
}

// runBinary runs the binary to its end, bounded, and returns stdout+stderr.
func runBinary(t *testing.T, args ...string) string {
	t.Helper()
	out, ended := runBinaryFor(t, 60*time.Second, args...)
	if !ended {
		t.Fatalf("%v did not end within 60s:\n%s", args, out)
	}
	return out
}

// runBinaryFor runs the binary for at most d and returns what it printed,
// with its exit, and whether it ended by itself.
func runBinaryFor(t *testing.T, d time.Duration, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, rpconnectBin(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return fmt.Sprintf("%s\n(exit: %v)", out.String(), err), ctx.Err() == nil
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func assertNoSecret(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range binarySecrets {
		if strings.Contains(out, s) {
			t.Errorf("%s printed the secret %q:\n%s", what, s, out)
		}
	}
}

// badJDBCURLs are refused by doris_binlog and the doris cache alike.
var badJDBCURLs = []string{
	"jdbc:mysql://root:S3cretUserInfo@127.0.0.1:9030/db",
	"jdbc:mysql://root:S3c/S3cretUserInfo@127.0.0.1:9030/db",
	"jdbc:mysql://127.0.0.1:9030/db?password=p%zzword",
	"jdbc:mysql://127.0.0.1:9030/db?user=root&password=p%zzword&S3cretParam",
	"root:S3cretNoPrefix@127.0.0.1:9030/db",
	"mysql://root:S3cretNoPrefix@127.0.0.1:9030/db",
}

// secretsConfig is doris_binlog with jdbcURL, checkpointing to a doris
// cache with cacheURL.
func secretsConfig(jdbcURL, cacheURL string) string {
	return fmt.Sprintf(`input:
  doris_binlog:
    fenodes: 127.0.0.1:1
    table_identifier: sec.t
    username: root
    password: S3cretPasswordField
    scan_mode: latest
    checkpoint_cache: cp
    request_connect_timeout: 1s
    request_retries: 1
    jdbc_url: %q
    binlog_offset_table: ops.offsets
    binlog_consumer_id: sec
%s`, jdbcURL, cacheConfig(cacheURL))
}

func cacheConfig(jdbcURL string) string {
	return fmt.Sprintf(`cache_resources:
  - label: cp
    doris:
      jdbc_url: %q
      username: root
      password: S3cretPasswordField
      table: ops.checkpoints
output:
  drop: {}
`, jdbcURL)
}

// cacheOnlyConfig makes the doris cache start (Benthos builds resources
// when first used) from a one-message stream, with nothing else that could
// fail first.
func cacheOnlyConfig(jdbcURL string) string {
	return `input:
  generate:
    mapping: root = "x"
    count: 1
pipeline:
  processors:
    - cache:
        resource: cp
        operator: get
        key: k
` + cacheConfig(jdbcURL)
}

// TestBinaryNeverPrintsSecrets lints, echoes and runs configs whose jdbc_url
// and password fields hold secrets: lint, a run refused by lint, a run that
// fails at start (--chilled) and a run whose doris cache fails at DEBUG print
// none of them, and still name jdbc_url.
func TestBinaryNeverPrintsSecrets(t *testing.T) {
	const goodURL = "jdbc:mysql://127.0.0.1:9030/ops"
	for _, u := range badJDBCURLs {
		path := writeConfig(t, secretsConfig(u, goodURL))
		for _, args := range [][]string{{"lint", path}, {"run", path}, {"run", "--chilled", path}} {
			out := runBinary(t, args...)
			assertNoSecret(t, strings.Join(args[:len(args)-1], " ")+" of "+u, out)
			if !strings.Contains(out, "jdbc_url") || strings.Contains(out, "exit: <nil>") {
				t.Errorf("%v of %s did not fail naming jdbc_url:\n%s", args[:len(args)-1], u, out)
			}
		}
		assertNoSecret(t, "echo of "+u, runBinary(t, "echo", path))

		path = writeConfig(t, cacheOnlyConfig(u))
		assertNoSecret(t, "lint of the cache with "+u, runBinary(t, "lint", path))
		out := runBinary(t, "run", "--log.level", "debug", path)
		assertNoSecret(t, "run of the cache with "+u, out)
		if !strings.Contains(out, "failed to init cache 'cp'") || !strings.Contains(out, "jdbc_url") {
			t.Errorf("the doris cache with %s did not fail naming jdbc_url:\n%s", u, out)
		}
		assertNoSecret(t, "echo of the cache with "+u, runBinary(t, "echo", path))
	}
	// A parameter refused only when the cache connects.
	path := writeConfig(t, cacheOnlyConfig("jdbc:mysql://127.0.0.1:9030/db?connectTimeout=S3cretParam"))
	out := runBinary(t, "run", "--log.level", "debug", path)
	assertNoSecret(t, "run of the cache with a bad connectTimeout", out)
	if !strings.Contains(out, "connectTimeout must be milliseconds") {
		t.Errorf("the doris cache did not refuse connectTimeout:\n%s", out)
	}

	// A valid jdbc_url with a secret parameter: lint passes, and the run,
	// which cannot reach its FE, keeps retrying without printing it.
	secretURL := "jdbc:mysql://127.0.0.1:9030/db?connectTimeout=1000&password=S3cretParam"
	path = writeConfig(t, secretsConfig(secretURL, secretURL))
	if out := runBinary(t, "lint", path); strings.Contains(out, "exit: exit status") {
		t.Errorf("lint refused a valid jdbc_url:\n%s", out)
	}
	out, _ = runBinaryFor(t, 5*time.Second, "run", "--log.level", "debug", path)
	if !strings.Contains(out, "127.0.0.1:1") {
		t.Errorf("the run against an unreachable FE did not report it:\n%s", out)
	}
	assertNoSecret(t, "run with a valid jdbc_url", out)
	assertNoSecret(t, "echo with a valid jdbc_url", runBinary(t, "echo", path))
}

// TestDebugRunNeverPrintsSecrets runs the binary at DEBUG against dorissim
// with secrets in the password and in both jdbc_url parameters, through the
// snapshot, binlog windows, offset table and the doris cache, and greps all
// it printed.
func TestDebugRunNeverPrintsSecrets(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{Password: "S3cretDorisPw"})
	harness.CreateTable(t, srv, db, "secrets_src", harness.TableOpts{})
	harness.Exec(t, srv, "CREATE DATABASE ops",
		"CREATE TABLE ops.offsets (\n  consumer_id VARCHAR(256) NOT NULL,\n  offset_timestamp DATETIME NOT NULL,\n  update_time DATETIMEV2(3) NOT NULL)\nUNIQUE KEY(consumer_id) DISTRIBUTED BY HASH(consumer_id) BUCKETS 1\nPROPERTIES (\"replication_num\" = \"1\")")
	w := harness.NewWorkload(srv, db, "secrets_src", 4)
	if err := w.Insert(ctxTimeout(t, time.Minute), 20); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`logger:
  level: DEBUG
input:
  doris_binlog:
    fenodes: %s
    table_identifier: %s.secrets_src
    username: root
    password: S3cretDorisPw
    scan_mode: initial
    binlog_poll_interval: 1s
    checkpoint_cache: cp
    jdbc_url: "jdbc:mysql://%s/ops?connectTimeout=5000&sessionToken=S3cretDebugParam"
    binlog_offset_table: ops.offsets
    binlog_consumer_id: secrets-consumer
cache_resources:
  - label: cp
    doris:
      jdbc_url: "jdbc:mysql://%s/ops?sessionToken=S3cretCacheParam"
      username: root
      password: S3cretDorisPw
      table: ops.checkpoints
output:
  drop: {}
`, srv.HTTPAddr(), db, srv.MySQLAddr(), srv.MySQLAddr())
	path := writeConfig(t, cfg)
	var out bytes.Buffer
	cmd := exec.Command(rpconnectBin(t), "run", path)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ctx := ctxTimeout(t, time.Minute)
	for i := range 5 {
		if err := w.Step(ctx); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	waitOffsetRow(t, srv, "secrets-consumer")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		stopped = true
	case <-time.After(30 * time.Second):
		t.Fatalf("rpconnect-doris did not stop within 30s of SIGTERM:\n%s", out.String())
	}
	log := out.String()
	if !strings.Contains(log, "level=debug") && !strings.Contains(strings.ToLower(log), "debug") {
		t.Fatalf("the run logged nothing at debug level, so it proves nothing:\n%s", log)
	}
	assertNoSecret(t, "the DEBUG run", log)
}
