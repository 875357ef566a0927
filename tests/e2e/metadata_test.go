package e2e

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestMetadataKeysAndTypes: the exact metadata keys of a snapshot and of a
// binlog message, and the Go type of each value as Bloblang and processors
// see it.
func TestMetadataKeysAndTypes(t *testing.T) {
	srv := simWithOneRow(t)
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.t", "scan_mode: initial"), Resources: harness.MemoryCache}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 1 })
	harness.Exec(t, srv, "DELETE FROM e2e.t WHERE id = 1")
	evs := col.WaitFor(t, 30*time.Second, "the delete", func(evs []harness.Event) bool { return len(evs) >= 2 })

	common := map[string]string{"operation": "string", "database_schema": "string", "table": "string", "schema": "object", "key_columns": "array", "doris_schema": "object"}
	binlog := maps.Clone(common)
	for k, v := range map[string]string{"tso": "int64", "lsn": "int64", "commit_ts_ms": "int64", "source_ts_ms": "int64", "transaction_id": "string"} {
		binlog[k] = v
	}
	for i, want := range []map[string]string{common, binlog} {
		ev := evs[i]
		got := map[string]string{}
		for k, v := range ev.Meta {
			got[k] = kindOf(v)
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s message metadata %v, want %v", ev.Operation, got, want)
		}
	}
	if evs[0].Operation != "read" || evs[1].Operation != "delete" || evs[1].Database != "e2e" || evs[1].Table != "t" {
		t.Errorf("events %+v", evs)
	}
	if evs[1].SourceTSMs != evs[1].CommitTSMs || evs[1].CommitTSMs != evs[1].TSO>>18 {
		t.Errorf("source_ts_ms %d, commit_ts_ms %d, tso %d: want both the TSO's physical part", evs[1].SourceTSMs, evs[1].CommitTSMs, evs[1].TSO)
	}
	if keys, _ := evs[0].Meta["key_columns"].([]any); !slices.Equal(keys, []any{"id"}) {
		t.Errorf("key_columns %v", evs[0].Meta["key_columns"])
	}
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "int64"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case service.ImmutableValue:
		return "immutable"
	}
	return "other"
}
