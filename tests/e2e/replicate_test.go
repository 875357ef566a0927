package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestDorisToDorisConfig runs config/doris_to_doris.yaml with the built
// binary: a snapshot and a live workload on demo.orders must end up, through
// Stream Load with delete signs, as the same rows in demo.orders_replica.
func TestDorisToDorisConfig(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "demo", "orders", harness.TableOpts{})
	harness.CreateTable(t, srv, "demo", "orders_replica", harness.TableOpts{NoBinlog: true})
	w := harness.NewWorkload(srv, "demo", "orders", 11)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 200); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, rpconnect(t), "run", "-r", "resources/offsets_memory_cache.yaml", "config/doris_to_doris.yaml")
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "DORIS_FENODES="+srv.HTTPAddr(), "DORIS_TARGET_FE="+srv.HTTPAddr(),
		"DORIS_SOURCE_TABLE=demo.orders", "DORIS_TARGET_TABLE=orders_replica")
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
	want := harness.TableState(t, srv, "demo", "orders", "id", cols...)
	deadline := time.Now().Add(60 * time.Second)
	var diff string
	for time.Now().Before(deadline) {
		got := harness.TableState(t, srv, "demo", "orders_replica", "id", cols...)
		if diff = harness.Diff(want, got); diff == "" {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("replica differs from the source after 60s:\n%s", diff)
}
