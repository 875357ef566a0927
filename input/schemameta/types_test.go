package schemameta

import (
	"reflect"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/schema"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// allTypesDDL is SHOW CREATE TABLE text of a table holding every type the
// input reads, spelled the way Doris prints them.
const allTypesDDL = "CREATE TABLE `all_types` (\n" +
	"  `id` bigint NOT NULL,\n" +
	"  `b` boolean NULL,\n" +
	"  `ti` tinyint NULL,\n" +
	"  `si` smallint NULL,\n" +
	"  `i` int NOT NULL,\n" +
	"  `li` largeint NULL,\n" +
	"  `f` float NULL,\n" +
	"  `d` double NULL,\n" +
	"  `dec` decimal(10, 2) NULL,\n" +
	"  `dec38` decimalv3(38, 10) NULL,\n" +
	"  `dec76` decimal256(76, 6) NULL,\n" +
	"  `dt` date NULL,\n" +
	"  `dt2` datev2 NULL,\n" +
	"  `ts0` datetime NULL,\n" +
	"  `ts3` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),\n" +
	"  `ts6` datetimev2(6) NULL,\n" +
	"  `c` char(4) NULL,\n" +
	"  `vc` varchar(32) NULL COMMENT 'NOT NULL in a comment'\n," +
	"  `s` string NULL,\n" +
	"  `t` text NULL,\n" +
	"  `j` json NULL,\n" +
	"  `ip4` ipv4 NULL,\n" +
	"  `ip6` ipv6 NULL,\n" +
	"  `arr` array<int> NULL,\n" +
	"  `arr2` array<array<decimal(5,1)>> NULL,\n" +
	"  `m` map<string,datetime(6)> NULL,\n" +
	"  `mk` map<array<int>,int> NULL,\n" +
	"  `st` struct<a:int,`b c`:varchar(8),d:array<largeint>> NOT NULL\n" +
	") ENGINE=OLAP\n" +
	"UNIQUE KEY(`id`)\n" +
	"DISTRIBUTED BY HASH(`id`) BUCKETS 4\n" +
	"PROPERTIES (\"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\");"

func dec(name string, p, s int32, opt bool) schema.Common {
	return schema.Common{Name: name, Type: schema.Decimal, Optional: opt,
		Logical: &schema.LogicalParams{Decimal: &schema.DecimalParams{Precision: p, Scale: s}}}
}

func ts(name string, u schema.TimeUnit, opt bool) schema.Common {
	return schema.Common{Name: name, Type: schema.Timestamp, Optional: opt,
		Logical: &schema.LogicalParams{Timestamp: &schema.TimestampParams{Unit: u, AdjustToUTC: false}}}
}

func leaf(name string, t schema.CommonType, opt bool) schema.Common {
	return schema.Common{Name: name, Type: t, Optional: opt}
}

func TestEveryDorisTypeMapsToCommon(t *testing.T) {
	p, err := doris.ParseShowCreateTable(allTypesDDL)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New("db", "all_types", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []schema.Common{
		leaf("id", schema.Int64, false),
		leaf("b", schema.Boolean, true),
		leaf("ti", schema.Int32, true),
		leaf("si", schema.Int32, true),
		leaf("i", schema.Int32, false),
		leaf("li", schema.BigDecimal, true),
		leaf("f", schema.Float32, true),
		leaf("d", schema.Float64, true),
		dec("dec", 10, 2, true),
		dec("dec38", 38, 10, true),
		leaf("dec76", schema.BigDecimal, true),
		leaf("dt", schema.Date, true),
		leaf("dt2", schema.Date, true),
		ts("ts0", schema.TimeUnitSeconds, true),
		ts("ts3", schema.TimeUnitMillis, false),
		ts("ts6", schema.TimeUnitMicros, true),
		leaf("c", schema.String, true),
		leaf("vc", schema.String, true),
		leaf("s", schema.String, true),
		leaf("t", schema.String, true),
		leaf("j", schema.Any, true),
		leaf("ip4", schema.String, true),
		leaf("ip6", schema.String, true),
		{Name: "arr", Type: schema.Array, Optional: true, Children: []schema.Common{leaf("element", schema.Int32, true)}},
		{Name: "arr2", Type: schema.Array, Optional: true, Children: []schema.Common{
			{Name: "element", Type: schema.Array, Optional: true, Children: []schema.Common{dec("element", 5, 1, true)}},
		}},
		{Name: "m", Type: schema.Map, Optional: true, Children: []schema.Common{ts("value", schema.TimeUnitMicros, true)}},
		{Name: "mk", Type: schema.Array, Optional: true, Children: []schema.Common{
			{Name: "entry", Type: schema.Object, Children: []schema.Common{
				{Name: "key", Type: schema.Array, Optional: true, Children: []schema.Common{leaf("element", schema.Int32, true)}},
				leaf("value", schema.Int32, true),
			}},
		}},
		{Name: "st", Type: schema.Object, Children: []schema.Common{
			leaf("a", schema.Int32, true),
			leaf("b c", schema.String, true),
			{Name: "d", Type: schema.Array, Optional: true, Children: []schema.Common{leaf("element", schema.BigDecimal, true)}},
		}},
	}
	got := m.Common()
	if got.Type != schema.Object || got.Name != "all_types" || len(got.Children) != len(want) {
		t.Fatalf("root = %v %q with %d children, want OBJECT all_types with %d", got.Type, got.Name, len(got.Children), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got.Children[i], want[i]) {
			t.Errorf("column %s:\n got %+v\nwant %+v", want[i].Name, got.Children[i], want[i])
		}
	}
	// The metadata value is exactly Common.ToAny() and parses back.
	back, err := schema.ParseFromAny(attached(t, m, KeySchema))
	if err != nil {
		t.Fatalf("ParseFromAny: %v", err)
	}
	if !reflect.DeepEqual(back, got) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", back, got)
	}
}

func TestNestedNotNullAndComments(t *testing.T) {
	typ, err := parseType("struct<a:int NOT NULL COMMENT 'x, y>',b:array<varchar(3) NOT NULL> NULL>")
	if err != nil {
		t.Fatal(err)
	}
	c, err := commonOf("st", typ, true)
	if err != nil {
		t.Fatal(err)
	}
	want := schema.Common{Name: "st", Type: schema.Object, Optional: true, Children: []schema.Common{
		leaf("a", schema.Int32, false),
		{Name: "b", Type: schema.Array, Optional: true, Children: []schema.Common{leaf("element", schema.String, false)}},
	}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
}

func TestTypeErrorsNameTheColumn(t *testing.T) {
	cases := map[string]string{
		"bitmap":            "type BITMAP has no schema mapping",
		"decimal":           "needs (precision, scale)",
		"decimal(5,6)":      "scale between 0 and precision",
		"datetime(7)":       "fractional digits must be between 0 and 6",
		"array<int":         "expected '>'",
		"map<int>":          "expected ','",
		"struct<>":          "expected a field name",
		"array<hll>":        "element: type HLL has no schema mapping",
		"varchar(1,2,x)":    "expected a number",
		"int(3) extra":      "unexpected \"extra\"",
		"struct<a:int NOT>": "expected NULL after NOT",
		"json(3)":           "takes no arguments",
		strings.Repeat("array<", 80) + "int" + strings.Repeat(">", 80): "nests too deeply",
	}
	for typ, want := range cases {
		p := &doris.TableProperties{KeysType: "DUP_KEYS", Columns: []doris.ColumnDef{{Name: "k", Type: "int"}, {Name: "bad", Type: typ}}}
		_, err := New("db", "t", p, nil)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "db.t") || !strings.Contains(err.Error(), "column bad") {
			t.Errorf("%s: error %v, want one naming db.t, column bad and %q", typ, err, want)
		}
	}
}
