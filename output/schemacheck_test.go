package output

import (
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"
)

// TestPartSchemasListsEachSchemaOnce: the part's distinct schemas in order
// of first appearance, whether attached immutably (doris_binlog), as a
// plain map (other inputs) or without a fingerprint; messages without
// schema metadata add none.
func TestPartSchemasListsEachSchemaOnce(t *testing.T) {
	a := schema.Common{Name: "t", Type: schema.Object, Children: []schema.Common{{Name: "id", Type: schema.Int64}}}
	b := schema.Common{Name: "t", Type: schema.Object, Children: []schema.Common{{Name: "id", Type: schema.Int64}, {Name: "x", Type: schema.String}}}
	noFP := b.ToAny().(map[string]any)
	delete(noFP, "fingerprint")
	msgs := service.MessageBatch{
		change(`{}`, "s", "t", opInsert, 10, 1), change(`{}`, "s", "t", opInsert, 11, 1),
		change(`{}`, "s", "t", opInsert, 12, 1), change(`{}`, "s", "t", opInsert, 13, 1),
		change(`{}`, "s", "t", opInsert, 14, 1),
	}
	msgs[0].MetaSetImmut(metaSchema, service.ImmutableAny{V: a.ToAny()})
	msgs[1].MetaSetImmut(metaSchema, service.ImmutableAny{V: a.ToAny()})
	msgs[2].MetaSetMut(metaSchema, b.ToAny())
	// msgs[3] carries no schema
	msgs[4].MetaSetMut(metaSchema, noFP)
	p := &part{target: "d.t", msgs: []int{0, 1, 2, 3, 4}}
	got, err := partSchemas(msgs, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].first != 0 || got[1].first != 2 || got[0].tso != 10 || got[1].tso != 12 || got[0].fp == got[1].fp {
		t.Fatalf("schemas %+v", got)
	}
	msgs[3].MetaSetMut(metaSchema, "public")
	p.scan = nil // scan again
	if again, err := partSchemas(msgs, p); err != nil || len(again) != 2 {
		t.Fatalf("a schema value that is no object is some other use of the key: %v %v", again, err)
	}
	msgs[3].MetaSetMut(metaSchema, map[string]any{"type": "NOPE"})
	p.scan = nil
	if _, err := partSchemas(msgs, p); err == nil || !strings.Contains(err.Error(), "message 3 into d.t") {
		t.Fatalf("a malformed schema object: %v, want an error naming the message", err)
	}
}
