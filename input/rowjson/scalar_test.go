package rowjson

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

func TestScalarTypes(t *testing.T) {
	fields := []arrow.Field{
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.Null, Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		b.Field(0).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		b.Field(1).(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil)
		b.Field(2).(*array.Int16Builder).AppendValues([]int16{-32768, 5}, nil)
		b.Field(3).(*array.Int32Builder).AppendValues([]int32{math.MinInt32, 0}, nil)
		b.Field(4).(*array.Int64Builder).AppendValues([]int64{math.MinInt64, math.MaxInt64}, nil)
		b.Field(5).(*array.Uint64Builder).AppendValues([]uint64{math.MaxUint64, 1}, nil)
		b.Field(6).(*array.Float32Builder).AppendValues([]float32{0.1, 1e-7}, nil)
		b.Field(7).(*array.Float64Builder).AppendValues([]float64{1.5e300, -0.000001}, nil)
		b.Field(8).(*array.StringBuilder).AppendValues([]string{"hé\"llo", ""}, nil)
		b.Field(9).(*array.NullBuilder).AppendNulls(2)
		for i := 0; i < 9; i++ {
			b.Field(i).AppendNull()
		}
		b.Field(9).AppendNull()
	})
	got := convertAll(t, rec, Options{})
	expectRows(t, got,
		`{"b":true,"i8":-128,"i16":-32768,"i32":-2147483648,"i64":-9223372036854775808,"u64":18446744073709551615,"f32":0.1,"f64":1.5e+300,"s":"hé\"llo","n":null}`,
		`{"b":false,"i8":127,"i16":5,"i32":0,"i64":9223372036854775807,"u64":1,"f32":1e-7,"f64":-0.000001,"s":"","n":null}`,
		`{"b":null,"i8":null,"i16":null,"i32":null,"i64":null,"u64":null,"f32":null,"f64":null,"s":null,"n":null}`,
	)
}

func TestFloatSpecialValuesAreNull(t *testing.T) {
	fields := []arrow.Field{
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "h", Type: arrow.FixedWidthTypes.Float16},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Float64Builder).AppendValues([]float64{math.NaN(), math.Inf(1), math.Inf(-1), 2}, nil)
		b.Field(1).(*array.Float16Builder).AppendValues([]float16.Num{
			float16.New(float32(math.NaN())), float16.New(1.5), float16.New(-2), float16.New(0)}, nil)
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"f":null,"h":null}`, `{"f":null,"h":1.5}`, `{"f":null,"h":-2}`, `{"f":2,"h":0}`)
}

func TestFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.1, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, 5e-324, math.MaxFloat64} {
		got := string(appendFloat(nil, f, 64))
		want := mustMarshal(t, f)
		if got != want {
			t.Errorf("appendFloat(%v, 64) = %s, encoding/json %s", f, got, want)
		}
	}
	for _, f := range []float32{0.1, 1e21, 1e-7, 3.4028235e38, 16777216} {
		got := string(appendFloat(nil, float64(f), 32))
		want := mustMarshal(t, f)
		if got != want {
			t.Errorf("appendFloat(%v, 32) = %s, encoding/json %s", f, got, want)
		}
	}
}

func TestBinaryIPv4AndUUID(t *testing.T) {
	fields := []arrow.Field{
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
		{Name: "ip", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: meta("IPV4")},
		{Name: "ipu", Type: arrow.PrimitiveTypes.Uint32, Nullable: true, Metadata: meta("ipv4")},
		{Name: "ip6", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		b.Field(0).(*array.BinaryBuilder).AppendValues([][]byte{{0, 1, 0xfe, 0xff}, {}}, nil)
		b.Field(1).(*array.FixedSizeBinaryBuilder).AppendValues([][]byte{[]byte("abc"), {0, 0, 0}}, nil)
		b.Field(2).(*array.Int32Builder).AppendValues([]int32{int32(-1062731775), 0}, nil) // 192.168.0.1
		b.Field(3).(*array.Uint32Builder).AppendValues([]uint32{0x7f000001, 0xffffffff}, nil)
		b.Field(4).(*array.StringBuilder).AppendValues([]string{"::1", "2001:db8::1"}, nil)
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"bin":"AAH+/w==","fsb":"YWJj","ip":"192.168.0.1","ipu":"127.0.0.1","ip6":"::1"}`,
		`{"bin":"","fsb":"AAAA","ip":"0.0.0.0","ipu":"255.255.255.255","ip6":"2001:db8::1"}`,
	)
}

func TestJSONColumnEmbedded(t *testing.T) {
	fields := []arrow.Field{{Name: "j", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta("JSON")}}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		sb := b.Field(0).(*array.StringBuilder)
		sb.AppendValues([]string{`{"a":[1,2,{"b":null}]}`, `"x"`, `12.5`, `null`, `{bad`, ``, "\"\xff\""}, nil)
		sb.AppendNull()
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"j":{"a":[1,2,{"b":null}]}}`, `{"j":"x"}`, `{"j":12.5}`, `{"j":null}`,
		`{"j":"{bad"}`, `{"j":""}`, `{"j":"\"\ufffd\""}`, `{"j":null}`)
}

func TestUnsupportedTypeNamesColumn(t *testing.T) {
	cases := []arrow.Field{
		{Name: "iv", Type: arrow.FixedWidthTypes.MonthInterval},
		{Name: "nested", Type: arrow.ListOf(arrow.FixedWidthTypes.DayTimeInterval)},
	}
	for _, f := range cases {
		_, err := NewConverter(arrow.NewSchema([]arrow.Field{f}, nil), Options{})
		if err == nil || !strings.Contains(err.Error(), f.Name) || !strings.Contains(err.Error(), "unsupported Arrow type") {
			t.Errorf("field %s: err = %v, want unsupported type naming the column", f.Name, err)
		}
	}
}
