package storage

import (
	"math/big"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestParseTypeRoundTrip(t *testing.T) {
	cases := []struct{ in, str, schema string }{
		{"BOOLEAN", "BOOLEAN", "BOOLEAN"},
		{"tinyint", "TINYINT", "TINYINT"},
		{"SMALLINT", "SMALLINT", "SMALLINT"},
		{"INTEGER", "INT", "INT"},
		{"int(11)", "INT", "INT"},
		{"BIGINT", "BIGINT", "BIGINT"},
		{"LARGEINT", "LARGEINT", "LARGEINT"},
		{"FLOAT", "FLOAT", "FLOAT"},
		{"DOUBLE", "DOUBLE", "DOUBLE"},
		{"DECIMAL", "DECIMAL(9,0)", "DECIMAL32"},
		{"DECIMAL(10, 2)", "DECIMAL(10,2)", "DECIMAL64"},
		{"DECIMALV3(38,10)", "DECIMAL(38,10)", "DECIMAL128"},
		{"DECIMAL(18,0)", "DECIMAL(18,0)", "DECIMAL64"},
		{"DATE", "DATE", "DATEV2"},
		{"DATEV2", "DATE", "DATEV2"},
		{"DATETIME", "DATETIME", "DATETIMEV2"},
		{"DATETIMEV2(3)", "DATETIME(3)", "DATETIMEV2"},
		{"CHAR(4)", "CHAR(4)", "CHAR"},
		{"VARCHAR(16)", "VARCHAR(16)", "VARCHAR"},
		{"STRING", "STRING", "STRING"},
		{"TEXT", "STRING", "STRING"},
		{"JSONB", "JSON", "JSON"},
		{"ARRAY<INT>", "ARRAY<INT>", "ARRAY"},
		{"MAP<STRING, INT>", "MAP<STRING,INT>", "MAP"},
		{"STRUCT<a:INT, b:STRING>", "STRUCT<a:INT,b:STRING>", "STRUCT"},
		{"ARRAY<MAP<VARCHAR(8),ARRAY<DECIMAL(5,1)>>>", "ARRAY<MAP<VARCHAR(8),ARRAY<DECIMAL(5,1)>>>", "ARRAY"},
		{"STRUCT<`x y`:DATETIME(6), s:STRUCT<n:BIGINT>>", "STRUCT<x y:DATETIME(6),s:STRUCT<n:BIGINT>>", "STRUCT"},
	}
	for _, c := range cases {
		ty, err := ParseType(c.in)
		if err != nil {
			t.Fatalf("ParseType(%q): %v", c.in, err)
		}
		if ty.String() != c.str || ty.SchemaName() != c.schema {
			t.Errorf("ParseType(%q) = %s / %s, want %s / %s", c.in, ty.String(), ty.SchemaName(), c.str, c.schema)
		}
	}
}

func TestParseTypeErrors(t *testing.T) {
	for _, in := range []string{"", "FOO", "DECIMAL(0,0)", "DECIMAL(5,6)", "DATETIME(7)", "VARCHAR(0)", "CHAR(256)",
		"ARRAY<INT", "MAP<INT>", "STRUCT<a INT>", "INT junk"} {
		if _, err := ParseType(in); err == nil {
			t.Errorf("ParseType(%q): expected an error", in)
		}
	}
}

func mustType(t *testing.T, s string) Type {
	t.Helper()
	ty, err := ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func TestParseValueAndFormat(t *testing.T) {
	cases := []struct{ typ, in, out string }{
		{"BOOLEAN", "true", "1"},
		{"TINYINT", "-128", "-128"},
		{"LARGEINT", "170141183460469231731687303715884105727", "170141183460469231731687303715884105727"},
		{"DECIMAL(10,2)", "12.3", "12.30"},
		{"DECIMAL(10,2)", "1.005", "1.01"},
		{"DECIMAL(5,0)", "-99999", "-99999"},
		{"DATE", "2026-09-14", "2026-09-14"},
		{"DATETIME", "2026-09-14 10:00:00.987", "2026-09-14 10:00:00"},
		{"DATETIME(3)", "2026-09-14 10:00:00.98765", "2026-09-14 10:00:00.987"},
		{"DATETIME(6)", "2026-09-14T10:00:00", "2026-09-14 10:00:00.000000"},
		{"VARCHAR(3)", "abc", "abc"},
		{"JSON", `{ "a" : [1, 2] }`, `{"a":[1,2]}`},
		{"DOUBLE", "1.5", "1.5"},
		{"ARRAY<INT>", "[1, 2, null]", "[1, 2, null]"},
		{"ARRAY<STRING>", `["a", 'b,c']`, `["a", "b,c"]`},
		{"MAP<STRING,INT>", `{"k":1, "j":2}`, `{"k":1, "j":2}`},
		{"STRUCT<a:INT,b:STRING>", `{1, "x"}`, `{"a":1, "b":"x"}`},
		{"STRUCT<a:INT,b:STRING>", `{"b":"y", "a":2}`, `{"a":2, "b":"y"}`},
		{"ARRAY<STRUCT<d:DATE>>", `[{"d":"2026-01-02"}]`, `[{"d":"2026-01-02"}]`},
	}
	for _, c := range cases {
		ty := mustType(t, c.typ)
		v, err := ParseValue(ty, c.in)
		if err != nil {
			t.Fatalf("ParseValue(%s, %q): %v", c.typ, c.in, err)
		}
		if got := FormatValue(ty, v); got != c.out {
			t.Errorf("ParseValue(%s, %q) formats as %q, want %q", c.typ, c.in, got, c.out)
		}
	}
}

func TestParseValueNormalizedGoTypes(t *testing.T) {
	check := func(typ, in string, want any) {
		t.Helper()
		v, err := ParseValue(mustType(t, typ), in)
		if err != nil {
			t.Fatal(err)
		}
		switch w := want.(type) {
		case decimal.Decimal:
			if d, ok := v.(decimal.Decimal); !ok || !d.Equal(w) || d.Exponent() != w.Exponent() {
				t.Fatalf("%s %q = %#v, want %v", typ, in, v, w)
			}
		case *big.Int:
			if b, ok := v.(*big.Int); !ok || b.Cmp(w) != 0 {
				t.Fatalf("%s %q = %#v", typ, in, v)
			}
		case time.Time:
			if ts, ok := v.(time.Time); !ok || !ts.Equal(w) || ts.Location() != time.UTC {
				t.Fatalf("%s %q = %#v, want %v", typ, in, v, w)
			}
		default:
			if v != want {
				t.Fatalf("%s %q = %#v (%T), want %#v (%T)", typ, in, v, v, want, want)
			}
		}
	}
	check("SMALLINT", "7", int16(7))
	check("INT", "7", int32(7))
	check("BIGINT", "7", int64(7))
	check("FLOAT", "0.5", float32(0.5))
	check("DECIMAL(10,2)", "3", decimal.New(300, -2))
	check("LARGEINT", "-5", big.NewInt(-5))
	check("DATE", "2026-09-14 10:11:12", time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC))
	m, err := ParseValue(mustType(t, "MAP<INT,STRING>"), `{1:"a"}`)
	if err != nil {
		t.Fatal(err)
	}
	if mv, ok := m.(MapValue); !ok || mv.Keys[0] != int32(1) || mv.Values[0] != "a" {
		t.Fatalf("map = %#v", m)
	}
}

func TestParseValueErrors(t *testing.T) {
	cases := []struct{ typ, in string }{
		{"TINYINT", "128"},
		{"INT", "abc"},
		{"BOOLEAN", "yes"},
		{"LARGEINT", "170141183460469231731687303715884105728"},
		{"DECIMAL(4,2)", "100.00"},
		{"DATE", "2026-13-01"},
		{"DATETIME", "yesterday"},
		{"VARCHAR(2)", "abc"},
		{"JSON", "{bad"},
		{"ARRAY<INT>", "[1, x]"},
		{"ARRAY<INT>", "[1, 2"},
		{"MAP<STRING,INT>", "[1]"},
		{"STRUCT<a:INT>", "{1, 2}"},
	}
	for _, c := range cases {
		if v, err := ParseValue(mustType(t, c.typ), c.in); err == nil {
			t.Errorf("ParseValue(%s, %q) = %v, expected an error", c.typ, c.in, v)
		}
	}
}

func TestCoerce(t *testing.T) {
	v, err := Coerce(mustType(t, "DECIMAL(6,2)"), 1.5)
	if err != nil || FormatValue(mustType(t, "DECIMAL(6,2)"), v) != "1.50" {
		t.Fatalf("decimal from float: %v %v", v, err)
	}
	if _, err := Coerce(mustType(t, "TINYINT"), int64(300)); err == nil {
		t.Fatal("TINYINT 300 should be out of range")
	}
	if v, _ := Coerce(mustType(t, "INT"), int64(5)); v != int32(5) {
		t.Fatalf("INT from int64 = %#v", v)
	}
	zone := time.FixedZone("X", 3600)
	v, _ = Coerce(mustType(t, "DATETIME(3)"), time.Date(2026, 1, 2, 3, 4, 5, 123456789, zone))
	if FormatValue(mustType(t, "DATETIME(3)"), v) != "2026-01-02 03:04:05.123" {
		t.Fatalf("datetime keeps the wall clock: %v", v)
	}
	v, err = Coerce(mustType(t, "ARRAY<BIGINT>"), []any{1, int32(2)})
	if err != nil || v.([]any)[0] != int64(1) {
		t.Fatalf("array coerce: %#v %v", v, err)
	}
}
