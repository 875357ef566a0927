package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestDorisToDorisConfig runs config/doris_to_doris.yaml with the built
// binary: a snapshot and a live workload on the tables of demo must end up,
// through doris_load with delete signs and a sequence column, as the same
// rows in the tables of demo_replica, which nobody created: create_tables
// creates the database and its tables, with the sequence column.
func TestDorisToDorisConfig(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "demo", "orders", harness.TableOpts{})
	harness.CreateTable(t, srv, "demo", "items", harness.TableOpts{})
	wi := harness.NewWorkload(srv, "demo", "items", 12)
	if err := wi.Insert(ctxTimeout(t, 30*time.Second), 50); err != nil {
		t.Fatal(err)
	}
	w := harness.NewWorkload(srv, "demo", "orders", 11)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 200); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, rpconnect(t), "run", "-r", "resources/offsets_memory_cache.yaml", "config/doris_to_doris.yaml")
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "DORIS_FENODES="+srv.HTTPAddr(), "DORIS_TARGET_FE="+srv.HTTPAddr(),
		"DORIS_SOURCE_DB=demo", "DORIS_TARGET_DB=demo_replica")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("rpconnect-doris output:\n%s", logs.String())
		}
	}()

	runWorkload(t, w, 60)
	runWorkload(t, wi, 20)
	for _, tbl := range []string{"orders", "items"} {
		waitState(t, srv, "demo_replica", tbl, harness.TableState(t, srv, "demo", tbl, "id", cols...), 60*time.Second)
		if p := showCreate(t, srv, "demo_replica", tbl); p.Properties["function_column.sequence_col"] != "_src_tso" || p.KeysType != "UNIQUE_KEYS" {
			t.Errorf("demo_replica.%s: %s, properties %v", tbl, p.KeysType, p.Properties)
		}
	}
}

// TestFileToDorisConfig runs config/file_to_doris.yaml: JSON lines update
// only the columns they carry.
func TestFileToDorisConfig(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "demo", "orders", harness.TableOpts{NoBinlog: true})
	harness.Exec(t, srv, "INSERT INTO demo.orders VALUES (1, 'a', 1, 1.00), (2, 'b', 2, 2.00), (3, 'c', 3, 3.00)")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{\"id\": 1, \"qty\": 10}\n{\"id\": 3, \"qty\": 30}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, rpconnect(t), "run", "config/file_to_doris.yaml")
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "DORIS_FENODES="+srv.HTTPAddr(), "DORIS_INPUT_FILES="+filepath.Join(dir, "*.jsonl"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rpconnect-doris: %v\n%s", err, out)
	}
	want := map[string]harness.Row{
		"1": {"id": "1", "name": "a", "qty": "10", "amount": "1.00"},
		"2": {"id": "2", "name": "b", "qty": "2", "amount": "2.00"},
		"3": {"id": "3", "name": "c", "qty": "30", "amount": "3.00"},
	}
	if diff := harness.Diff(want, harness.TableState(t, srv, "demo", "orders", "id", cols...)); diff != "" {
		t.Fatalf("after file_to_doris:\n%s\n%s", diff, out)
	}
}
