package rowjson

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

const benchRows = 4096

// mixedRecord builds the 12-column table of the performance measurements in
// decisions.md, with about one value in ten null in the nullable columns.
func mixedRecord(t testing.TB) arrow.RecordBatch {
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "status", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ratio", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true},
		{Name: "balance", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "created", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "active", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}
	rng := rand.New(rand.NewSource(42))
	base := time.Date(2025, 10, 9, 8, 53, 20, 0, time.UTC)
	return buildRecord(t, fields, func(b *array.RecordBuilder) {
		for i := 0; i < benchRows; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i) + 1_000_000)
			b.Field(1).(*array.Int32Builder).Append(rng.Int31())
			b.Field(2).(*array.Int8Builder).Append(int8(rng.Intn(5)))
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("customer-%06d", rng.Intn(1e6)))
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("order for \"%d\" — café", i))
			b.Field(5).(*array.Float64Builder).Append(rng.Float64() * 1000)
			b.Field(6).(*array.Float32Builder).Append(rng.Float32())
			b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int63n(1e9)))
			b.Field(8).(*array.Decimal128Builder).Append(decimal128.New(rng.Int63n(1<<40), rng.Uint64()))
			b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp(base.Add(time.Duration(i) * time.Second).UnixMicro()))
			b.Field(10).(*array.Date32Builder).Append(arrow.Date32(20000 + i%365))
			b.Field(11).(*array.BooleanBuilder).Append(i%2 == 0)
			if i%10 == 9 {
				for _, k := range []int{1, 4, 6, 8, 10} {
					fb := b.Field(k)
					// Replace the value just appended by a null.
					switch x := fb.(type) {
					case *array.Int32Builder:
						x.Resize(x.Len() - 1)
					case *array.StringBuilder:
						x.Resize(x.Len() - 1)
					case *array.Float32Builder:
						x.Resize(x.Len() - 1)
					case *array.Decimal128Builder:
						x.Resize(x.Len() - 1)
					case *array.Date32Builder:
						x.Resize(x.Len() - 1)
					}
					fb.AppendNull()
				}
			}
		}
	})
}

func BenchmarkAppendRow(b *testing.B) {
	rec := mixedRecord(b)
	c, err := NewConverter(rec.Schema(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Bind(rec); err != nil {
		b.Fatal(err)
	}
	var total int
	buf := make([]byte, 0, 1024)
	for i := 0; i < benchRows; i++ {
		buf, _ = c.AppendRow(buf[:0], i)
		total += len(buf)
	}
	b.SetBytes(int64(total / benchRows))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf, err = c.AppendRow(buf[:0], i%benchRows)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBind(b *testing.B) {
	rec := mixedRecord(b)
	c, err := NewConverter(rec.Schema(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := c.Bind(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendRowDoesNotAllocate pins the zero-allocation row path: with a
// reused buffer, converting a row must not touch the heap.
func TestAppendRowDoesNotAllocate(t *testing.T) {
	rec := mixedRecord(t)
	c, err := NewConverter(rec.Schema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(rec); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	row := 0
	allocs := testing.AllocsPerRun(1000, func() {
		buf, _ = c.AppendRow(buf[:0], row%benchRows)
		row++
	})
	if allocs != 0 {
		t.Fatalf("AppendRow allocates %.1f times per row, want 0", allocs)
	}
	got := convertAll(t, rec, Options{})
	if len(got) != benchRows {
		t.Fatalf("converted %d rows", len(got))
	}
}
