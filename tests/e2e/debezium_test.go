package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// shippedMapping is the mapping processor of config/debezium_envelope.yaml,
// as processor YAML.
func shippedMapping(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(harness.ModuleRoot(), "config", "debezium_envelope.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	start := strings.Index(s, "    - mapping: |\n")
	end := strings.Index(s, "\noutput:")
	if start < 0 || end < start {
		t.Fatal("config/debezium_envelope.yaml has no mapping processor before output")
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s[start:end], "\n"), "\n") {
		if len(line) > 6 {
			line = line[6:]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// TestDebeziumEnvelope runs the shipped envelope mapping: one envelope per
// change, an update with both images.
func TestDebeziumEnvelope(t *testing.T) {
	srv := simWithOneRow(t)
	col := &harness.Collector{}
	input := harness.InputYAML(srv, "e2e.t", "scan_mode: initial", "binlog_merge_updates: true")
	harness.RunStream(t, harness.StreamConfig{Input: input, Resources: harness.MemoryCache, Processor: shippedMapping(t)}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 1 })
	harness.Exec(t, srv, "UPDATE e2e.t SET qty = 2 WHERE id = 1", "DELETE FROM e2e.t WHERE id = 1")
	evs := col.WaitFor(t, 30*time.Second, "the changes", func(evs []harness.Event) bool { return len(evs) >= 3 })
	time.Sleep(2 * time.Second)
	evs = col.Events()
	if len(evs) != 3 {
		t.Fatalf("%d envelopes, want 3 (read, update, delete): %+v", len(evs), evs)
	}
	want := []string{
		`{"after":{"amount":"10.00","id":1,"name":"a","qty":1},"before":null,"op":"r"}`,
		`{"after":{"amount":"10.00","id":1,"name":"a","qty":2},"before":{"amount":"10.00","id":1,"name":"a","qty":1},"op":"u"}`,
		`{"after":null,"before":{"amount":"10.00","id":1,"name":"a","qty":2},"op":"d"}`,
	}
	for i, ev := range evs {
		got, _ := json.Marshal(map[string]any{"before": ev.Row["before"], "after": ev.Row["after"], "op": ev.Row["op"]})
		if string(got) != want[i] {
			t.Errorf("envelope %d: %s\nwant %s", i, got, want[i])
		}
		src, _ := ev.Row["source"].(map[string]any)
		if src["table"] != "t" || src["db"] != "e2e" {
			t.Errorf("envelope %d source %v", i, src)
		}
		if _, ok := ev.Row["ts_ms"].(json.Number); !ok {
			t.Errorf("envelope %d ts_ms %#v", i, ev.Row["ts_ms"])
		}
	}
}
