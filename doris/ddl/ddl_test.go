package ddl

import (
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/schema"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

func dec(p, s int32) *schema.LogicalParams {
	return &schema.LogicalParams{Decimal: &schema.DecimalParams{Precision: p, Scale: s}}
}

func ts(u schema.TimeUnit) *schema.LogicalParams {
	return &schema.LogicalParams{Timestamp: &schema.TimestampParams{Unit: u}}
}

func TestColumnTypeMapping(t *testing.T) {
	cases := []struct {
		in         schema.Common
		value, key string // "" key: refused as a key
	}{
		{schema.Common{Type: schema.Boolean}, "BOOLEAN", "BOOLEAN"},
		{schema.Common{Type: schema.Int32}, "INT", "INT"},
		{schema.Common{Type: schema.Int64}, "BIGINT", "BIGINT"},
		{schema.Common{Type: schema.Float32}, "FLOAT", ""},
		{schema.Common{Type: schema.Float64}, "DOUBLE", ""},
		{schema.Common{Type: schema.Decimal, Logical: dec(12, 3)}, "DECIMAL(12,3)", "DECIMAL(12,3)"},
		{schema.Common{Type: schema.BigDecimal}, "STRING", "VARCHAR(65533)"},
		{schema.Common{Type: schema.String}, "STRING", "VARCHAR(65533)"},
		{schema.Common{Type: schema.ByteArray}, "STRING", "VARCHAR(65533)"},
		{schema.Common{Type: schema.UUID}, "VARCHAR(36)", "VARCHAR(36)"},
		{schema.Common{Type: schema.Date}, "DATE", "DATE"},
		{schema.Common{Type: schema.Timestamp}, "DATETIME(3)", "DATETIME(3)"},
		{schema.Common{Type: schema.Timestamp, Logical: ts(schema.TimeUnitSeconds)}, "DATETIME", "DATETIME"},
		{schema.Common{Type: schema.Timestamp, Logical: ts(schema.TimeUnitMicros)}, "DATETIME(6)", "DATETIME(6)"},
		{schema.Common{Type: schema.Timestamp, Logical: ts(schema.TimeUnitNanos)}, "DATETIME(6)", "DATETIME(6)"},
		{schema.Common{Type: schema.TimeOfDay}, "STRING", "VARCHAR(65533)"},
		{schema.Common{Type: schema.Any}, "JSON", ""},
		{schema.Common{Type: schema.Array, Children: []schema.Common{{Type: schema.Int64}}}, "ARRAY<BIGINT>", ""},
		{schema.Common{Type: schema.Map, Children: []schema.Common{{Type: schema.Float64}}}, "MAP<STRING,DOUBLE>", ""},
		{schema.Common{Type: schema.Object, Children: []schema.Common{{Name: "a", Type: schema.Int32}, {Name: "b", Type: schema.String}}}, "STRUCT<a:INT,b:STRING>", ""},
		{schema.Common{Type: schema.Object, Children: []schema.Common{{Name: "a b", Type: schema.Int32}}}, "JSON", ""},
		{schema.Common{Type: schema.Object}, "JSON", ""},
		{schema.Common{Type: schema.Union, Children: []schema.Common{{Type: schema.Null}, {Type: schema.Int64}}}, "BIGINT", ""},
		{schema.Common{Type: schema.Union, Children: []schema.Common{{Type: schema.String}, {Type: schema.Int64}}}, "JSON", ""},
	}
	for _, c := range cases {
		c.in.Name = "c"
		got, err := ColumnType(c.in)
		if err != nil || got != c.value {
			t.Errorf("ColumnType(%s) = %q, %v; want %q", c.in.Type, got, err, c.value)
		}
		k, err := KeyColumnType(c.in)
		switch {
		case c.key == "" && err == nil:
			t.Errorf("KeyColumnType(%s) = %q; want it refused", c.in.Type, k)
		case c.key == "" && !strings.Contains(err.Error(), `"c"`):
			t.Errorf("KeyColumnType(%s) error %q does not name the column", c.in.Type, err)
		case c.key != "" && (err != nil || k != c.key):
			t.Errorf("KeyColumnType(%s) = %q, %v; want %q", c.in.Type, k, err, c.key)
		}
	}
	if _, err := ColumnType(schema.Common{Name: "n", Type: schema.Null}); err == nil {
		t.Error("NULL column type accepted")
	}
	if _, err := ColumnType(schema.Common{Name: "d", Type: schema.Decimal}); err == nil {
		t.Error("DECIMAL without precision accepted")
	}
}

func TestCreateTableFromCommonKeyed(t *testing.T) {
	root := schema.Common{Type: schema.Object, Children: []schema.Common{
		{Name: "note", Type: schema.String, Optional: true},
		{Name: "order`id", Type: schema.String},
		{Name: "amount", Type: schema.Decimal, Logical: dec(10, 2), Optional: true},
	}}
	tbl, err := FromCommon(root, []string{"order`id"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CreateTableSQL("shop db", "or`ders", tbl, Options{Buckets: 8, Properties: map[string]string{"replication_num": "1"}, SequenceColumn: "_tso"})
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE IF NOT EXISTS `shop db`.`or``ders` (\n" +
		"  `order``id` VARCHAR(65533) NOT NULL,\n" +
		"  `note` STRING NULL,\n" +
		"  `amount` DECIMAL(10,2) NULL,\n" +
		"  `_tso` BIGINT NULL COMMENT 'source change order (doris_load sequence_column)'\n" +
		") ENGINE=OLAP\n" +
		"UNIQUE KEY(`order``id`)\n" +
		"DISTRIBUTED BY HASH(`order``id`) BUCKETS 8\n" +
		"PROPERTIES (\n" +
		"'enable_unique_key_merge_on_write' = 'true',\n" +
		"'function_column.sequence_col' = '_tso',\n" +
		"'replication_num' = '1'\n)"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCreateTableFromCommonKeyless(t *testing.T) {
	root := schema.Common{Type: schema.Object, Children: []schema.Common{
		{Name: "ts", Type: schema.Timestamp, Logical: ts(schema.TimeUnitMicros)},
		{Name: "msg", Type: schema.String, Optional: true},
	}}
	tbl, err := FromCommon(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := CreateTableSQL("logs", "events", tbl, Options{Properties: map[string]string{PropMergeOnWrite: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE IF NOT EXISTS `logs`.`events` (\n" +
		"  `ts` DATETIME(6) NOT NULL,\n" +
		"  `msg` STRING NULL\n" +
		") ENGINE=OLAP\n" +
		"DUPLICATE KEY(`ts`)\n" +
		"DISTRIBUTED BY RANDOM BUCKETS AUTO"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A first column Doris refuses as a key: no sort key at all.
	root.Children[0], root.Children[1] = root.Children[1], root.Children[0]
	tbl, _ = FromCommon(root, nil)
	got, err = CreateTableSQL("logs", "events", tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "KEY(") || !strings.Contains(got, "'enable_duplicate_without_keys_by_default' = 'true'") {
		t.Fatalf("keyless table with a STRING first column:\n%s", got)
	}
	// A keyless table keeps the sequence column as a plain column.
	got, err = CreateTableSQL("logs", "events", tbl, Options{SequenceColumn: "seq"})
	if err != nil || !strings.Contains(got, "`seq` BIGINT NULL") || strings.Contains(got, PropSequenceCol) {
		t.Fatalf("sequence_column on a keyless table: %v\n%s", err, got)
	}
}

func TestFromCommonRefusesBadKeys(t *testing.T) {
	root := schema.Common{Type: schema.Object, Children: []schema.Common{{Name: "f", Type: schema.Float64}, {Name: "v", Type: schema.Int32}}}
	if _, err := FromCommon(root, []string{"f"}); err == nil || !strings.Contains(err.Error(), "FLOAT") {
		t.Fatalf("float key: %v", err)
	}
	if _, err := FromCommon(root, []string{"missing"}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing key: %v", err)
	}
}

const sourceDDL = "CREATE TABLE `src` (\n" +
	"  `k1` varchar(32) NOT NULL COMMENT 'the key',\n" +
	"  `k2` largeint NOT NULL,\n" +
	"  `amount` decimal(20,4) NULL,\n" +
	"  `at` datetime(6) NULL,\n" +
	"  `tags` array<text> NULL,\n" +
	"  `doc` json NULL,\n" +
	"  `m` map<text,int> NULL,\n" +
	"  `s` struct<a:int,b:text> NULL\n" +
	") ENGINE=OLAP\n" +
	"UNIQUE KEY(`k1`, `k2`)\n" +
	"COMMENT 'it''s the source'\n" +
	"DISTRIBUTED BY HASH(`k1`) BUCKETS 4\n" +
	"PROPERTIES (\"binlog.enable\" = \"true\");"

func TestDescribeRoundTrip(t *testing.T) {
	p, err := doris.ParseShowCreateTable(sourceDDL)
	if err != nil {
		t.Fatal(err)
	}
	// The body order may put keys anywhere: the table puts them first.
	cols := append([]doris.ColumnDef{p.Columns[2]}, p.Columns[0], p.Columns[1])
	cols = append(cols, p.Columns[3:]...)
	tbl, err := FromDescription(Describe(p, cols))
	if err != nil {
		t.Fatal(err)
	}
	got, err := CreateTableSQL("dst", "src", tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE IF NOT EXISTS `dst`.`src` (\n" +
		"  `k1` varchar(32) NOT NULL COMMENT 'the key',\n" +
		"  `k2` largeint NOT NULL,\n" +
		"  `amount` decimal(20,4) NULL,\n" +
		"  `at` datetime(6) NULL,\n" +
		"  `tags` array<text> NULL,\n" +
		"  `doc` json NULL,\n" +
		"  `m` map<text,int> NULL,\n" +
		"  `s` struct<a:int,b:text> NULL\n" +
		") ENGINE=OLAP\n" +
		"UNIQUE KEY(`k1`, `k2`)\n" +
		"COMMENT 'it''s the source'\n" +
		"DISTRIBUTED BY HASH(`k1`, `k2`) BUCKETS AUTO\n" +
		"PROPERTIES (\n'enable_unique_key_merge_on_write' = 'true'\n)"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFromDescriptionRefuses(t *testing.T) {
	p, err := doris.ParseShowCreateTable(sourceDDL)
	if err != nil {
		t.Fatal(err)
	}
	// A selection without a key column cannot make a keyed table.
	if _, err := FromDescription(Describe(p, p.Columns[1:])); err == nil || !strings.Contains(err.Error(), "`k1`") {
		t.Fatalf("missing key: %v", err)
	}
	// A type text that is not a type is never written into a statement.
	bad := Describe(p, p.Columns)
	bad["columns"].([]any)[2].(map[string]any)["type"] = "int) ; DROP DATABASE x; --"
	if _, err := FromDescription(bad); err == nil || !strings.Contains(err.Error(), "amount") {
		t.Fatalf("hostile type: %v", err)
	}
	if _, err := FromDescription("nope"); err == nil {
		t.Fatal("a string accepted as a description")
	}
	// A DUPLICATE KEY sort key is cut before its first unselected column.
	p.KeysType = "DUP_KEYS"
	tbl, err := FromDescription(Describe(p, []doris.ColumnDef{p.Columns[0], p.Columns[2]}))
	if err != nil || tbl.Model != Duplicate || len(tbl.Keys) != 1 || tbl.Keys[0] != "k1" {
		t.Fatalf("dup sort key: %+v %v", tbl, err)
	}
}

func TestTemplate(t *testing.T) {
	root := schema.Common{Type: schema.Object, Children: []schema.Common{{Name: "id", Type: schema.Int64}, {Name: "v", Type: schema.String, Optional: true}}}
	tbl, _ := FromCommon(root, []string{"id"})
	tmpl := "CREATE TABLE IF NOT EXISTS {database}.{table} (\n{columns}\n) UNIQUE KEY({key_columns}) " +
		"PARTITION BY RANGE(`id`) () DISTRIBUTED BY HASH({key_columns}) BUCKETS 3"
	got, err := CreateTableSQL("d`b", "t", tbl, Options{Template: tmpl})
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE IF NOT EXISTS `d``b`.`t` (\n  `id` BIGINT NOT NULL,\n  `v` STRING NULL\n) UNIQUE KEY(`id`) " +
		"PARTITION BY RANGE(`id`) () DISTRIBUTED BY HASH(`id`) BUCKETS 3"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if err := CheckTemplate("CREATE TABLE {table} (id INT)"); err == nil {
		t.Fatal("template without {columns} accepted")
	}
	keyless, _ := FromCommon(root, nil)
	if _, err := CreateTableSQL("d", "t", keyless, Options{Template: tmpl}); err == nil {
		t.Fatal("template with {key_columns} filled for a keyless table")
	}
}

func TestCreateDatabaseSQL(t *testing.T) {
	if got := CreateDatabaseSQL("a`b"); got != "CREATE DATABASE IF NOT EXISTS `a``b`" {
		t.Fatal(got)
	}
}

// The fingerprint Describe stores names the description: the same table
// hashes alike, a lengthened VARCHAR does not, and a value built without
// one (another producer) hashes as Describe's would.
func TestDescriptionFingerprintAndColumnTypes(t *testing.T) {
	p := &doris.TableProperties{KeysType: "UNIQUE_KEYS", KeyColumns: []string{"id"}, Nullable: map[string]bool{}}
	a := Describe(p, []doris.ColumnDef{{Name: "id", Type: "bigint"}, {Name: "Name", Type: "varchar(10)"}})
	b := Describe(p, []doris.ColumnDef{{Name: "id", Type: "bigint"}, {Name: "Name", Type: "varchar(10)"}})
	c := Describe(p, []doris.ColumnDef{{Name: "id", Type: "bigint"}, {Name: "Name", Type: "varchar(50)"}})
	if DescriptionFingerprint(a) == "" || DescriptionFingerprint(a) != DescriptionFingerprint(b) || DescriptionFingerprint(a) == DescriptionFingerprint(c) {
		t.Fatalf("fingerprints %s %s %s", DescriptionFingerprint(a), DescriptionFingerprint(b), DescriptionFingerprint(c))
	}
	bare := map[string]any{}
	for k, v := range a {
		if k != "fingerprint" {
			bare[k] = v
		}
	}
	if DescriptionFingerprint(bare) != DescriptionFingerprint(a) {
		t.Fatal("a description without a fingerprint hashes differently")
	}
	types, err := ColumnTypes(c)
	if err != nil || types["name"] != "varchar(50)" || types["id"] != "bigint" {
		t.Fatalf("types %v %v", types, err)
	}
	if _, err := ColumnTypes("x"); err == nil {
		t.Fatal("a string is no description")
	}
}
