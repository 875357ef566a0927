package rowjson

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestMalformedOffsetsFailTheRow feeds a list whose offsets point past its
// child array, as a corrupt IPC stream could: the row must fail with an
// error, the buffer must be left as it was, and nothing may panic.
func TestMalformedOffsetsFailTheRow(t *testing.T) {
	child := array.NewInt64Builder(memory.DefaultAllocator)
	defer child.Release()
	child.AppendValues([]int64{1, 2}, nil)
	values := child.NewArray()
	defer values.Release()

	offsets := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 2, 50}))
	typ := arrow.ListOf(arrow.PrimitiveTypes.Int64)
	data := array.NewData(typ, 2, []*memory.Buffer{nil, offsets}, []arrow.ArrayData{values.Data()}, 0, 0)
	defer data.Release()
	list := array.NewListData(data)
	defer list.Release()

	schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: typ}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{list}, 2)
	defer rec.Release()
	c, err := NewConverter(schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(rec); err != nil {
		t.Fatal(err)
	}
	if out, err := c.AppendRow(nil, 0); err != nil || string(out) != `{"l":[1,2]}` {
		t.Fatalf("row 0 = %s, %v", out, err)
	}
	out, err := c.AppendRow([]byte("keep"), 1)
	if err == nil || !strings.Contains(err.Error(), "malformed Arrow data") || string(out) != "keep" {
		t.Fatalf("row 1 = %q, %v; want the malformed-data error and dst unchanged", out, err)
	}
}
