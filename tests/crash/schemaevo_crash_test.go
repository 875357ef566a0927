package crash

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestCrashBetweenAddColumnAndLoad: doris_binlog -> doris_load with
// schema_evolution. ADD COLUMN on the source mid-stream; the output adds
// the column to the target, then every load fails (HTTP 500), and the
// process is SIGKILLed between the ALTER and the first load holding the
// column. The restarted run finds the column there and every value of it
// arrives.
func TestCrashBetweenAddColumnAndLoad(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "se", "src", harness.TableOpts{})
	harness.CreateTable(t, srv, "se_t", "src", harness.TableOpts{NoBinlog: true})
	w := harness.NewWorkload(srv, "se", "src", 41)
	if err := w.Insert(ctxFor(t, time.Minute), 20); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	conf := schemaEvoConfig(srv, cacheDir)

	first := startLoadRun(t, dir, cacheDir, 1, conf)
	waitTable(t, first, srv, harness.TableState(t, srv, "se", "src", "id", columns...), columns)
	srv.SetFaults(dorissim.Faults{StreamLoadHTTPErrors: 1 << 20})
	harness.Exec(t, srv, "ALTER TABLE se.src ADD COLUMN extra INT",
		"INSERT INTO se.src (id, name, qty, amount, extra) VALUES (1001, 'new', 1, 1.00, 7)",
		"UPDATE se.src SET extra = 8 WHERE id = 1")
	deadline := time.Now().Add(60 * time.Second)
	for !slices.Contains(harness.TableColumns(t, srv, "se_t", "src"), "extra") {
		if first.exited() || time.Now().After(deadline) {
			t.Fatalf("the target never got column extra\n%s", first.logTail())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, ok := harness.TableState(t, srv, "se_t", "src", "id", columns...)["1001"]; ok {
		t.Fatal("row 1001 loaded while every load fails")
	}
	first.kill(t)
	srv.SetFaults(dorissim.Faults{})

	second := startLoadRun(t, dir, cacheDir, 2, conf)
	withExtra := append(slices.Clone(columns), "extra")
	want := harness.TableState(t, srv, "se", "src", "id", withExtra...)
	if want["1001"]["extra"] != "7" || want["1"]["extra"] != "8" {
		t.Fatalf("source rows: %v %v", want["1001"], want["1"])
	}
	waitTable(t, second, srv, want, withExtra)
	if code := second.terminate(t, 60*time.Second); code != 0 {
		t.Errorf("the second run exited with %d after SIGTERM", code)
	}
}

func schemaEvoConfig(srv *dorissim.Server, cacheDir string) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\nshutdown_timeout: 30s\n")
	b.WriteString("input:\n")
	harness.Indent(&b, harness.InputYAML(srv, "se.src", "scan_mode: initial", "batch_size: 50"))
	b.WriteString("pipeline:\n  threads: 1\n")
	fmt.Fprintf(&b, "output:\n  doris_load:\n    fenodes: %s\n    username: root\n    password: \"\"\n    table_identifier: se_t.src\n    request_retries: 1\n    schema_evolution:\n      enabled: true\n", srv.HTTPAddr())
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}

// waitTable waits until se_t.src, read over cols, equals want; the run
// exiting fails the test.
func waitTable(t *testing.T, r *run, srv *dorissim.Server, want map[string]harness.Row, cols []string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var diff string
	for time.Now().Before(deadline) {
		if slices.Contains(harness.TableColumns(t, srv, "se_t", "src"), cols[len(cols)-1]) {
			if diff = harness.Diff(want, harness.TableState(t, srv, "se_t", "src", "id", cols...)); diff == "" {
				return
			}
		}
		if r.exited() {
			t.Fatalf("run %d exited: %v\n%s", r.no, r.waitErr, r.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("se_t.src differs after 60s:\n%s\n%s", diff, r.logTail())
}

// TestMissingColumnStopsThenResumesAfterRestart: without schema_evolution,
// ADD COLUMN on the source stops the stream before any row holding the
// column loads, the stop is logged naming the target and the column, and
// the checkpoint stays before it: after the column is added to the target
// by hand, a restarted run loads every value.
func TestMissingColumnStopsThenResumesAfterRestart(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "se", "src", harness.TableOpts{})
	harness.CreateTable(t, srv, "se_t", "src", harness.TableOpts{NoBinlog: true})
	w := harness.NewWorkload(srv, "se", "src", 42)
	if err := w.Insert(ctxFor(t, time.Minute), 20); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	conf := strings.Replace(schemaEvoConfig(srv, cacheDir), "    schema_evolution:\n      enabled: true\n", "", 1)

	first := startLoadRun(t, dir, cacheDir, 1, conf)
	waitTable(t, first, srv, harness.TableState(t, srv, "se", "src", "id", columns...), columns)
	harness.Exec(t, srv, "ALTER TABLE se.src ADD COLUMN extra INT",
		"INSERT INTO se.src (id, name, qty, amount, extra) VALUES (1001, 'new', 1, 1.00, 7)",
		"UPDATE se.src SET extra = 8 WHERE id = 1")
	const stop = "carries column(s) extra, which se_t.src lacks"
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(first.log(), stop); {
		if _, ok := harness.TableState(t, srv, "se_t", "src", "id", columns...)["1001"]; ok {
			t.Fatal("row 1001 was loaded without its column extra")
		}
		if first.exited() || time.Now().After(deadline) {
			t.Fatalf("run 1 did not log %q\n%s", stop, first.logTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, ok := harness.TableState(t, srv, "se_t", "src", "id", columns...)["1001"]; ok {
		t.Fatal("row 1001 was loaded without its column extra")
	}
	first.kill(t)

	harness.Exec(t, srv, "ALTER TABLE se_t.src ADD COLUMN extra INT")
	second := startLoadRun(t, dir, cacheDir, 2, conf)
	withExtra := append(slices.Clone(columns), "extra")
	waitTable(t, second, srv, harness.TableState(t, srv, "se", "src", "id", withExtra...), withExtra)
	if code := second.terminate(t, 60*time.Second); code != 0 {
		t.Errorf("the second run exited with %d after SIGTERM", code)
	}
}
