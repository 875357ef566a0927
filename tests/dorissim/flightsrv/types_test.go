package flightsrv

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func TestAllTypesArrowMapping(t *testing.T) {
	e := startEnv(t, nil)
	c, ctx := login(t, e)
	schema, recs, err := fetch(t, e, c, ctx, "alltypes")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"c_bool": "bool", "c_tiny": "int8", "c_small": "int16", "c_int": "int32", "c_big": "int64",
		"c_large": "utf8", "c_float": "float32", "c_double": "float64",
		"c_dec": "decimal(10, 2)", "c_dec256": "decimal256(50, 3)", "c_date": "date32",
		"c_dt0": "timestamp[s]", "c_dt3": "timestamp[ms]", "c_dt6": "timestamp[us]",
		"c_char": "utf8", "c_varchar": "utf8", "c_string": "utf8", "c_json": "utf8",
		"c_array":  "list<item: int32, nullable>",
		"c_map":    "map<utf8, int32, items_nullable>",
		"c_struct": "struct<a: int32 nullable, b: utf8 nullable>",
	}
	for _, f := range schema.Fields() {
		if got := f.Type.String(); got != want[f.Name] {
			t.Errorf("%s: arrow type %s, want %s", f.Name, got, want[f.Name])
		}
		if ts, ok := f.Type.(*arrow.TimestampType); ok && ts.TimeZone != "" {
			t.Errorf("%s: timestamp has zone %q", f.Name, ts.TimeZone)
		}
	}
	meta := func(name string) string {
		f, _ := schema.FieldsByName(name)
		v, _ := f[0].Metadata.GetValue("doris_type")
		return v
	}
	if meta("c_large") != "LARGEINT" || meta("c_json") != "JSON" {
		t.Errorf("doris_type metadata: large=%q json=%q", meta("c_large"), meta("c_json"))
	}
	m := schema.Field(19).Type.(*arrow.MapType)
	if m.KeyField().Nullable {
		t.Error("map key is nullable")
	}
	if len(recs) != 1 || recs[0].NumRows() != 2 {
		t.Fatalf("got %d batches", len(recs))
	}
	r := recs[0]
	checks := []struct {
		col  int
		want string
	}{
		{5, "170141183460469231731687303715884105727"},
		{9, "-123456789012345678901234567890123456789012.345"},
		{10, "2026-09-14"},
		{11, "2026-09-14 10:05:06"},
		{12, "2026-09-14 10:05:06.123"},
		{13, "2026-09-14 10:05:06.123456"},
		{18, "[1,null,3]"},
		{20, `{"a":7,"b":"seven"}`},
	}
	for _, ck := range checks {
		got := r.Column(ck.col).ValueStr(0)
		if ck.col == 11 || ck.col == 12 || ck.col == 13 {
			got = timestampText(r.Column(ck.col).(*array.Timestamp), 0)
		}
		if got != ck.want {
			t.Errorf("column %s = %q, want %q", schema.Field(ck.col).Name, got, ck.want)
		}
	}
	for i := 0; i < int(r.NumCols()); i++ {
		if !r.Column(i).IsNull(1) {
			t.Errorf("column %s row 1 not NULL", schema.Field(i).Name)
		}
	}
	if n := r.Column(8).(*array.Decimal128).Value(0).BigInt().String(); n != "1230" {
		t.Errorf("DECIMAL(10,2) 12.30 unscaled = %s", n)
	}
	mp := r.Column(19).(*array.Map)
	keys := mp.Keys().(*array.String)
	items := mp.Items().(*array.Int32)
	if keys.Value(0) != "x" || keys.Value(1) != "y" || items.Value(0) != 1 || !items.IsNull(1) {
		t.Errorf("map value %s", mp.ValueStr(0))
	}
}

func timestampText(a *array.Timestamp, i int) string {
	unit := a.DataType().(*arrow.TimestampType).Unit
	ts := a.Value(i).ToTime(unit)
	switch unit {
	case arrow.Second:
		return ts.Format("2006-01-02 15:04:05")
	case arrow.Millisecond:
		return ts.Format("2006-01-02 15:04:05.000")
	}
	return ts.Format("2006-01-02 15:04:05.000000")
}
