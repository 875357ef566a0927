package rowjson

import (
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func meta(dorisType string) arrow.Metadata {
	return arrow.NewMetadata([]string{"doris_type"}, []string{dorisType})
}

// buildRecord builds a batch with schema fields, filling the columns with fill.
func buildRecord(t testing.TB, fields []arrow.Field, fill func(b *array.RecordBuilder)) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

// convertAll binds rec to a new converter and returns every row's JSON.
func convertAll(t testing.TB, rec arrow.RecordBatch, opts Options) []string {
	t.Helper()
	c, err := NewConverter(rec.Schema(), opts)
	if err != nil {
		t.Fatalf("NewConverter: %v", err)
	}
	if err := c.Bind(rec); err != nil {
		t.Fatalf("Bind: %v", err)
	}
	out := make([]string, 0, c.Rows())
	for i := 0; i < c.Rows(); i++ {
		b, err := c.AppendRow(nil, i)
		if err != nil {
			t.Fatalf("AppendRow(%d): %v", i, err)
		}
		if !json.Valid(b) {
			t.Fatalf("row %d is not valid JSON: %s", i, b)
		}
		out = append(out, string(b))
	}
	return out
}

func expectRows(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}
