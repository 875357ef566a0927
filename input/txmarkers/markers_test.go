package txmarkers

import (
	"encoding/json"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func change(op string) *service.Message {
	m := service.NewMessage([]byte(`{"id":1}`))
	m.MetaSetMut("operation", op)
	m.MetaSetMut("tso", int64(7))
	return m
}

// Drop keeps the changes in order and returns a batch without markers as
// it is.
func TestDropKeepsChangesInOrder(t *testing.T) {
	plain := service.MessageBatch{change("insert"), change("delete")}
	if got := Drop(plain); &got[0] != &plain[0] || len(got) != 2 {
		t.Fatal("a batch without markers was copied")
	}
	mixed := service.MessageBatch{NewBegin(7, ""), plain[0], NewCommit(7, "", nil), NewBegin(8, ""), plain[1]}
	got := Drop(mixed)
	if len(got) != 2 || got[0] != plain[0] || got[1] != plain[1] {
		t.Fatalf("Drop kept %d messages, want the two changes in order", len(got))
	}
	if len(Drop(service.MessageBatch{NewBegin(9, "")})) != 0 {
		t.Fatal("a batch of one marker kept it")
	}
}

// A commit's body counts its tables' messages; a begin's has no count.
func TestMarkerBodies(t *testing.T) {
	var b struct {
		TransactionID string       `json:"transaction_id"`
		TSO           int64        `json:"tso"`
		CommitTsMs    int64        `json:"commit_ts_ms"`
		EventCount    *int64       `json:"event_count"`
		Tables        []TableCount `json:"tables"`
	}
	tso := int64(1796534756867)<<18 | 3
	raw, _ := NewBegin(tso, "").AsBytes()
	if err := json.Unmarshal(raw, &b); err != nil || b.EventCount != nil || b.TSO != tso || b.CommitTsMs != 1796534756867 {
		t.Fatalf("begin body %s (%v)", raw, err)
	}
	c := NewCommit(tso, "catchup", []TableCount{{"d.a", 2}, {"d.b", 1}})
	raw, _ = c.AsBytes()
	if err := json.Unmarshal(raw, &b); err != nil || b.EventCount == nil || *b.EventCount != 3 || len(b.Tables) != 2 {
		t.Fatalf("commit body %s (%v)", raw, err)
	}
	if KindOf(c) != Commit || !IsMarker(c) || KindOf(change("update")) != None {
		t.Fatal("kinds")
	}
	if p, _ := c.MetaGet("doris_phase"); p != "catchup" {
		t.Fatalf("doris_phase %q", p)
	}
}

// BenchmarkDropWithoutMarkers is what an output without markers pays per
// message to look for them.
func BenchmarkDropWithoutMarkers(b *testing.B) {
	batch := make(service.MessageBatch, 1000)
	for i := range batch {
		batch[i] = change("insert")
	}
	b.ResetTimer()
	for range b.N {
		_ = Drop(batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/msg")
}
