package storage

import (
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// Doris's BE writes nested strings, dates and struct field names wrapped in
// the result writer's nested_string_wrapper '"' with nothing escaped
// (be/src/vec/data_types/serde/data_type_array_serde.cpp, _map_serde,
// _struct_serde: write_column_to_mysql), NULL members as "null", members
// separated by ", " and map keys by ':'.
func TestFormatValueNested(t *testing.T) {
	str, date := Type{Kind: String}, Type{Kind: Date}
	dt3 := Type{Kind: DateTime, Scale: 3}
	day := time.Date(2024, 1, 2, 3, 4, 5, 678900000, time.UTC)
	cases := []struct {
		typ  Type
		v    any
		want string
	}{
		{Type{Kind: Array, Elem: &str}, []any{`a"b`, nil, `c\d`}, `["a"b", null, "c\d"]`},
		{Type{Kind: Array, Elem: &dt3}, []any{day}, `["2024-01-02 03:04:05.678"]`},
		{Type{Kind: Map, Key: &str, Value: &Type{Kind: Int}}, MapValue{Keys: []any{"k", `q"`}, Values: []any{int32(1), nil}}, `{"k":1, "q"":null}`},
		{Type{Kind: Struct, Fields: []Field{{Name: "name", Type: str}, {Name: "d", Type: date}, {Name: "n", Type: Type{Kind: Decimal, Precision: 9, Scale: 2}}}},
			[]any{"x", day, decimal.RequireFromString("1.5")}, `{"name":"x", "d":"2024-01-02", "n":1.50}`},
		{Type{Kind: Array, Elem: &Type{Kind: JSON}}, []any{`{"a":1}`}, `[{"a":1}]`},
	}
	for _, c := range cases {
		if got := FormatValue(c.typ, c.v); got != c.want {
			t.Errorf("FormatValue(%s) = %s, want %s", c.typ, got, c.want)
		}
	}
}

// The BE prints DOUBLE with FastDoubleToBuffer (printf "%.15g", "%.17g"
// when that does not read back) and FLOAT with FastFloatToBuffer ("%.6g",
// "%.9g"): be/src/util/mysql_row_buffer.cpp add_float.
func TestFormatValueFloats(t *testing.T) {
	dbl, flt := Type{Kind: Double}, Type{Kind: Float}
	cases := []struct {
		typ  Type
		v    any
		want string
	}{
		{dbl, 123456789.0, "123456789"},
		{dbl, 1e20, "1e+20"},
		{dbl, 0.1, "0.1"},
		{dbl, math.Nextafter(0.3, 1), "0.30000000000000004"},
		{dbl, -2.5, "-2.5"},
		{dbl, math.Inf(1), "inf"},
		{flt, float32(0.1), "0.1"},
		{flt, float32(1234567), "1234567"},
		{flt, float32(16777216), "16777216"},
	}
	for _, c := range cases {
		if got := FormatValue(c.typ, c.v); got != c.want {
			t.Errorf("FormatValue(%s, %v) = %s, want %s", c.typ, c.v, got, c.want)
		}
	}
}

// Row equality (DUP deletes, ops applied in a txn's view) must not rely on
// the text form, which prints ['a", "b'] and ['a', 'b'] alike.
func TestRowsEqualComparesCollectionsByMember(t *testing.T) {
	str := Type{Kind: String}
	cols := []Column{{Name: "a", Type: Type{Kind: Array, Elem: &str}}, {Name: "m", Type: Type{Kind: Map, Key: &str, Value: &str}}}
	one := []any{[]any{`a", "b`}, MapValue{Keys: []any{`k":"v`}, Values: []any{"w"}}}
	two := []any{[]any{"a", "b"}, MapValue{Keys: []any{`k":"v`}, Values: []any{"w"}}}
	if FormatValue(cols[0].Type, one[0]) != FormatValue(cols[0].Type, two[0]) {
		t.Fatal("expected the two arrays to print alike")
	}
	if rowsEqual(cols, one, two) {
		t.Error("rows with different arrays compare equal")
	}
	same := []any{[]any{`a", "b`}, MapValue{Keys: []any{`k":"v`}, Values: []any{"w"}}}
	if !rowsEqual(cols, one, same) || rowsEqual(cols, one, []any{nil, one[1]}) {
		t.Error("rowsEqual misjudges equal rows or NULL")
	}
}
