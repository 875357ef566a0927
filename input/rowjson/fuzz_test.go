package rowjson

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

func fuzzFields() []arrow.Field {
	entry := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	return []arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "j", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta("JSON")},
		{Name: "li", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta("LARGEINT")},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d128", Type: &arrow.Decimal128Type{Precision: 38, Scale: 9}, Nullable: true},
		{Name: "d256", Type: &arrow.Decimal256Type{Precision: 76, Scale: 20}, Nullable: true},
		{Name: "lib", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "tsz", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "k\"ey", Type: arrow.BinaryTypes.String, Nullable: true}, arrow.Field{Name: "m", Type: entry, Nullable: true}), Nullable: true},
		{Name: "ip", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: meta("IPV4")},
	}
}

// fuzzRecord puts the fuzz inputs into one row of every column kind, and a
// second row of nulls.
func fuzzRecord(t *testing.T, s, j string, i int64, u uint64, f float64, raw []byte) arrow.RecordBatch {
	return buildRecord(t, fuzzFields(), func(b *array.RecordBuilder) {
		b.Field(0).(*array.StringBuilder).Append(s)
		b.Field(1).(*array.StringBuilder).Append(j)
		b.Field(2).(*array.StringBuilder).Append(s)
		b.Field(3).(*array.Int64Builder).Append(i)
		b.Field(4).(*array.Float64Builder).Append(f)
		b.Field(5).(*array.Decimal128Builder).Append(decimal128.New(i, u))
		b.Field(6).(*array.Decimal256Builder).Append(decimal256.New(u, uint64(i), u^uint64(i), uint64(i)))
		var le [16]byte
		copy(le[:], raw)
		b.Field(7).(*array.FixedSizeBinaryBuilder).Append(le[:])
		b.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp(i))
		b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(u)))
		b.Field(10).(*array.Date32Builder).Append(arrow.Date32(int32(i)))
		b.Field(11).(*array.BinaryBuilder).Append(raw)
		lb := b.Field(12).(*array.ListBuilder)
		lb.Append(true)
		for _, part := range strings.SplitN(s, ",", 8) {
			lb.ValueBuilder().(*array.StringBuilder).Append(part)
		}
		sb := b.Field(13).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append(j)
		mb := sb.FieldBuilder(1).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append(s)
		mb.ItemBuilder().(*array.Int64Builder).Append(i)
		b.Field(14).(*array.Int32Builder).Append(int32(i))
		for k := range b.Fields() {
			b.Field(k).AppendNull()
		}
	})
}

func FuzzAppendRow(f *testing.F) {
	f.Add("hello", `{"a":1}`, int64(42), uint64(7), 1.5, []byte{1, 2, 3})
	f.Add("", "", int64(-1), uint64(0), -0.0, []byte{})
	f.Add("a\"b\\c\x00\u2028\xff,x", `[1,"\u2028",{}]`, int64(-9223372036854775808), uint64(18446744073709551615), 1e308, []byte{0xff, 0xfe, 0x80})
	loc := time.FixedZone("UTC+8", 8*3600)
	f.Fuzz(func(t *testing.T, s, j string, i int64, u uint64, fl float64, raw []byte) {
		rec := fuzzRecord(t, s, j, i, u, fl, raw)
		for _, opts := range []Options{{}, {Location: loc, DatetimePrecision: map[string]int{"ts": 2}}} {
			rows := convertAll(t, rec, opts) // asserts json.Valid for each row
			var row struct{ S *string }
			if err := json.Unmarshal([]byte(rows[0]), &row); err != nil || row.S == nil {
				t.Fatalf("row %s: %v", rows[0], err)
			}
			if want := replaceEachInvalid(s); *row.S != want {
				t.Fatalf("string column decoded as %q, want %q", *row.S, want)
			}
			if strings.Count(rows[1], "null") != len(fuzzFields()) {
				t.Fatalf("null row is %s", rows[1])
			}
		}
	})
}
