package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/offsetcmd"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestOffsetsOnDorisCache runs the built binary's offsets command on a
// checkpoint that the doris cache keeps in a Doris table: show finds it
// under the key the input used, and reset writes it back there.
func TestOffsetsOnDorisCache(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "ops", "held", harness.TableOpts{Buckets: 2})
	harness.Exec(t, srv, "CREATE DATABASE IF NOT EXISTS meta")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := harness.NewWorkload(srv, "ops", "held", 5).Insert(ctx, 4); err != nil {
		t.Fatal(err)
	}
	cacheYAML := fmt.Sprintf("label: cp\ndoris:\n  jdbc_url: jdbc:mysql://%s\n  username: root\n  table: meta.checkpoints\n", srv.MySQLAddr())
	res := "cache_resources:\n  - " + strings.ReplaceAll(strings.TrimRight(cacheYAML, "\n"), "\n", "\n    ") + "\n"
	in := harness.InputYAML(srv, "ops.held", "scan_mode: initial")
	col := &harness.Collector{}
	run := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: res}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 4 })
	key := harness.CheckpointKey("ops", "held")
	harness.WaitFor(t, 30*time.Second, "the snapshot's end in the checkpoint", func() bool {
		st := harness.StoredState(t, run, key)
		return st != nil && st.Tables["ops.held"] != nil && st.Tables["ops.held"].Phase == checkpoint.PhaseBinlog
	})
	if err := run.Stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	var conf strings.Builder
	conf.WriteString("input:\n")
	harness.Indent(&conf, in)
	conf.WriteString("output:\n  drop: {}\n" + res)
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN")
	offsets := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, append(append([]string{"offsets"}, args...), path)...).CombinedOutput()
		if err != nil {
			t.Fatalf("offsets %v: %v\n%s", args, err, out)
		}
		return out
	}
	var r offsetcmd.Report
	if out := offsets("show", "--format", "json"); json.Unmarshal(out, &r) != nil || r.Key != key || len(r.Tables) != 1 || r.Tables[0].Phase != "binlog" {
		t.Fatalf("show on the doris cache: %+v\n%s", r, out)
	}
	// The pipeline stopped just now: --force, the guard has its own test.
	offsets("reset", "--force", "--table", "ops.held")

	rb := service.NewResourceBuilder()
	if err := rb.AddCacheYAML(cacheYAML); err != nil {
		t.Fatal(err)
	}
	mgr, closeRes, err := rb.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = closeRes(context.Background()) }()
	st, _, err := checkpoint.NewStore(mgr, "cp", key).Load(ctx)
	if err != nil || st == nil {
		t.Fatalf("reading the checkpoint back: %v", err)
	}
	if tb := st.Tables["ops.held"]; tb.Phase != checkpoint.PhaseSnapshot || tb.Start != st.Stream.Start {
		t.Fatalf("after reset the doris cache holds %+v; want a new snapshot from the chain's start", tb)
	}
}
