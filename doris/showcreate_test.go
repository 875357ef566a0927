package doris

import (
	"reflect"
	"strings"
	"testing"
)

const ordersDDL = "CREATE TABLE `orders` (\n" +
	"  `order_id` bigint NULL,\n" +
	"  `status` varchar(16) NULL COMMENT 'state, e.g. \"paid\" (unique key(x))',\n" +
	"  `amount` decimal(10, 2) NULL,\n" +
	"  `created` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),\n" +
	"  `d0` DATETIME NULL,\n" +
	"  `d6` datetimev2(6) NULL,\n" +
	"  `tags` array<varchar(8)> NULL,\n" +
	"  `attrs` map<string,int> NULL,\n" +
	"  `s` struct<a:int,b:text> NULL,\n" +
	"  INDEX idx_status (`status`) USING INVERTED COMMENT 'x'\n" +
	") ENGINE=OLAP\n" +
	"UNIQUE KEY(`order_id`)\n" +
	"COMMENT 'PROPERTIES (\"binlog.enable\" = \"false\")'\n" +
	"DISTRIBUTED BY HASH(`order_id`) BUCKETS 8\n" +
	"PROPERTIES (\n" +
	"\"replication_allocation\" = \"tag.location.default: 1\",\n" +
	"\"enable_unique_key_merge_on_write\" = \"true\",\n" +
	"\"binlog.enable\" = \"true\",\n" +
	"\"binlog.format\" = \"ROW\",\n" +
	"\"binlog.need_historical_value\" = \"true\",\n" +
	"\"binlog.ttl_seconds\" = \"3600\"\n" +
	");"

func TestParseShowCreateTable(t *testing.T) {
	p, err := ParseShowCreateTable(ordersDDL)
	if err != nil {
		t.Fatal(err)
	}
	if p.KeysType != "UNIQUE_KEYS" || !reflect.DeepEqual(p.KeyColumns, []string{"order_id"}) {
		t.Fatalf("keys %s %v", p.KeysType, p.KeyColumns)
	}
	if !p.BinlogEnabled || p.BinlogFormat != "ROW" || !p.NeedHistoricalValue || p.TTLSeconds != 3600 || !p.MergeOnWrite {
		t.Fatalf("properties %+v", p)
	}
	wantCols := []ColumnDef{
		{"order_id", "bigint", ""}, {"status", "varchar(16)", `state, e.g. "paid" (unique key(x))`}, {"amount", "decimal(10,2)", ""}, {"created", "datetime(3)", ""},
		{"d0", "DATETIME", ""}, {"d6", "datetimev2(6)", ""}, {"tags", "array<varchar(8)>", ""}, {"attrs", "map<string,int>", ""},
		{"s", "struct<a:int,b:text>", ""},
	}
	if p.Comment != `PROPERTIES ("binlog.enable" = "false")` {
		t.Fatalf("table comment %q", p.Comment)
	}
	if !reflect.DeepEqual(p.Columns, wantCols) {
		t.Fatalf("columns %+v", p.Columns)
	}
	for name, want := range map[string]bool{"order_id": true, "status": true, "created": false, "s": true} {
		if got, ok := p.Nullable[name]; !ok || got != want {
			t.Errorf("Nullable[%s] = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if !reflect.DeepEqual(p.DatetimePrecision, map[string]int{"created": 3, "d0": 0, "d6": 6}) {
		t.Fatalf("precision %v", p.DatetimePrecision)
	}
	if p.Properties["replication_allocation"] != "tag.location.default: 1" {
		t.Fatalf("raw properties %v", p.Properties)
	}
}

func TestParseShowCreateTableDefaults(t *testing.T) {
	p, err := ParseShowCreateTable("CREATE TABLE `t` (`k` INT, `v` STRING) DUPLICATE KEY(`k`) DISTRIBUTED BY HASH(`k`) BUCKETS 1")
	if err != nil {
		t.Fatal(err)
	}
	if p.KeysType != "DUP_KEYS" || p.BinlogEnabled || p.TTLSeconds != 86400 || p.MergeOnWrite || len(p.Properties) != 0 {
		t.Fatalf("%+v", p)
	}
	p, err = ParseShowCreateTable("CREATE TABLE t (k INT) UNIQUE KEY(k) PROPERTIES (\"enable_unique_key_merge_on_write\" = \"false\")")
	if err != nil || p.KeysType != "UNIQUE_KEYS" || p.MergeOnWrite {
		t.Fatalf("MoR: %+v %v", p, err)
	}
	p, err = ParseShowCreateTable("CREATE TABLE t (k INT) UNIQUE KEY(k)")
	if err != nil || !p.MergeOnWrite {
		t.Fatalf("MoW default: %+v %v", p, err)
	}
}

func TestParseShowCreateTableErrors(t *testing.T) {
	bad := map[string]string{
		"":                                "does not start with CREATE",
		"SELECT 1":                        "does not start with CREATE",
		"CREATE TABLE t":                  "missing column list",
		"CREATE TABLE t (":                "missing column list",
		"CREATE TABLE t ()":               "empty column definition",
		"CREATE TABLE t (`a`)":            "malformed column definition",
		"CREATE TABLE t (`a` int":         "missing column list",
		"CREATE TABLE t (`a` array<int) ": "unbalanced type arguments",
		"CREATE TABLE t (`a` int) PROPERTIES (\"binlog.ttl_seconds\" = \"0\")":  "invalid binlog.ttl_seconds",
		"CREATE TABLE t (`a` int) PROPERTIES (\"binlog.ttl_seconds\" = \"1h\")": "invalid binlog.ttl_seconds",
		"CREATE TABLE t (`a` int) PROPERTIES (\"a\" = \"b\" \"c\")":             "PROPERTIES entries",
		"CREATE TABLE t (`a` int) PROPERTIES (\"a\" = \"b\"":                    "unbalanced PROPERTIES",
		"CREATE TABLE t (`a` int COMMENT 'x)":                                   "unterminated",
	}
	for ddl, want := range bad {
		_, err := ParseShowCreateTable(ddl)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", ddl, want, err)
		}
	}
}

func TestTableProperties(t *testing.T) {
	f := statementFE(t, 1, func(stmt string) string {
		if stmt != "SHOW CREATE TABLE `sales`.`orders`" {
			return `{"code":1,"msg":"unexpected ` + stmt + `"}`
		}
		return resultSet(`[{"name":"Table","type":"CHAR"},{"name":"Create Table","type":"CHAR"}]`,
			`[["orders",`+jsonString(ordersDDL)+`]]`)
	})
	c := testClient(t, ClientConfig{Retries: 1}, f.addr())
	p, err := FetchTableProperties(testCtx(t), c, "sales", "orders")
	if err != nil {
		t.Fatal(err)
	}
	if p.TTLSeconds != 3600 || p.DatetimePrecision["created"] != 3 {
		t.Fatalf("%+v", p)
	}
	_, err = FetchTableProperties(testCtx(t), c, "sales", "missing")
	if err == nil || !strings.Contains(err.Error(), "show create table sales.missing") {
		t.Fatalf("got %v", err)
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestParseShowCreateTablePartitioned: the half-open ranges Doris prints
// for RANGE partitions, [('lo'), ('hi')), must not hide PROPERTIES.
func TestParseShowCreateTablePartitioned(t *testing.T) {
	ddl := "CREATE TABLE `ev` (\n  `dt` date NOT NULL,\n  `id` bigint NOT NULL\n) ENGINE=OLAP\nUNIQUE KEY(`dt`, `id`)\n" +
		"PARTITION BY RANGE(`dt`)\n(PARTITION p1 VALUES [('0000-01-01'), ('2026-11-02')),\n" +
		"PARTITION p2 VALUES [('2026-11-02'), (MAXVALUE)))\nDISTRIBUTED BY HASH(`id`) BUCKETS 8\n" +
		"PROPERTIES (\n\"binlog.enable\" = \"true\",\n\"binlog.format\" = \"ROW\",\n\"binlog.ttl_seconds\" = \"600\"\n);"
	p, err := ParseShowCreateTable(ddl)
	if err != nil {
		t.Fatal(err)
	}
	if !p.BinlogEnabled || p.BinlogFormat != "ROW" || p.TTLSeconds != 600 || p.KeysType != "UNIQUE_KEYS" || len(p.KeyColumns) != 2 {
		t.Fatalf("%+v", p)
	}
}
