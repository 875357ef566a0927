package storage

import (
	"strings"
	"testing"
)

func TestParseCreateTableOrders(t *testing.T) {
	ct, err := ParseCreateTable(ordersDDL)
	if err != nil {
		t.Fatal(err)
	}
	d := ct.Def
	if d.Name != "orders" || d.Keys != UniqueKeys || d.Buckets != 8 || strings.Join(d.KeyColumns, ",") != "order_id" ||
		strings.Join(d.BucketColumns, ",") != "order_id" || len(d.Columns) != 3 {
		t.Fatalf("def = %+v", d)
	}
	if !d.Columns[0].Key || d.Columns[1].Key || !d.Columns[2].Nullable || d.Columns[2].Type.String() != "DECIMAL(10,2)" {
		t.Fatalf("columns = %+v", d.Columns)
	}
	if d.Properties["binlog.format"] != "ROW" || d.Properties["binlog.need_historical_value"] != "true" {
		t.Fatalf("properties = %v", d.Properties)
	}
}

func TestParseCreateTableFull(t *testing.T) {
	sql := "/* tool */ CREATE TABLE IF NOT EXISTS `sales`.`all types` (\n" +
		"  `id` INT NOT NULL COMMENT 'the id',\n" +
		"  b BOOLEAN DEFAULT 'true',\n" +
		"  n LARGEINT NULL DEFAULT NULL,\n" +
		"  d DECIMALV3(20, 4) DEFAULT \"1.5\",\n" +
		"  dt DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),\n" +
		"  j JSON,\n" +
		"  a ARRAY<ARRAY<INT>>,\n" +
		"  m MAP<VARCHAR(10), STRUCT<x:INT, y:ARRAY<STRING>>>,\n" +
		"  s STRUCT<`f 1`:DATE, f2:DOUBLE> COMMENT 'nested',\n" +
		"  neg INT DEFAULT -1,\n" +
		"  INDEX idx_j (j) USING INVERTED COMMENT 'idx'\n" +
		") ENGINE=OLAP\n" +
		"DUPLICATE KEY(`id`)\n" +
		"COMMENT 'table comment'\n" +
		"PARTITION BY RANGE(`id`) (PARTITION p1 VALUES LESS THAN (\"100\"), PARTITION p2 VALUES LESS THAN MAXVALUE)\n" +
		"DISTRIBUTED BY HASH(`id`) BUCKETS 3\n" +
		"PROPERTIES ('replication_num' = '1', \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\");"
	ct, err := ParseCreateTable(sql)
	if err != nil {
		t.Fatal(err)
	}
	if ct.DB != "sales" || ct.Def.Name != "all types" || !ct.IfNotExists || ct.Def.Keys != DupKeys || ct.Def.Buckets != 3 {
		t.Fatalf("ct = %+v", ct)
	}
	var types []string
	for _, c := range ct.Def.Columns {
		types = append(types, c.Name+" "+c.Type.String())
	}
	equalStrings(t, "types", types, []string{
		"id INT", "b BOOLEAN", "n LARGEINT", "d DECIMAL(20,4)", "dt DATETIME(3)", "j JSON",
		"a ARRAY<ARRAY<INT>>", "m MAP<VARCHAR(10),STRUCT<x:INT,y:ARRAY<STRING>>>",
		"s STRUCT<f 1:DATE,f2:DOUBLE>", "neg INT",
	})
	c := ct.Def.Columns
	if c[0].Nullable || c[0].Comment != "the id" || !c[2].Nullable || c[2].Default != nil || *c[3].Default != "1.5" ||
		*c[9].Default != "-1" || c[8].Comment != "nested" || ct.Def.Comment != "table comment" {
		t.Fatalf("attributes = %+v", c)
	}
	s := New(Options{})
	if err := s.CreateDatabase("sales", false); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(ct.DB, ct.Def, ct.IfNotExists); err != nil {
		t.Fatal(err)
	}
}

func TestParseCreateTableDefaults(t *testing.T) {
	ct, err := ParseCreateTable("create table t (a int, b string) distributed by hash(a) buckets 2")
	if err != nil {
		t.Fatal(err)
	}
	if ct.Def.Keys != DupKeys || strings.Join(ct.Def.KeyColumns, ",") != "a" || !ct.Def.Columns[0].Key || ct.Def.Columns[1].Key {
		t.Fatalf("default key model: %+v", ct.Def)
	}
	ct, err = ParseCreateTable("CREATE TABLE t (k INT) UNIQUE KEY(k)")
	if err != nil {
		t.Fatal(err)
	}
	if ct.Def.Buckets != 1 || strings.Join(ct.Def.BucketColumns, ",") != "k" {
		t.Fatalf("default distribution: %+v", ct.Def)
	}
}

func TestParseCreateTableErrors(t *testing.T) {
	for _, sql := range []string{
		"CREATE TABLE",
		"CREATE TABLE t",
		"CREATE TABLE t (a INT",
		"CREATE TABLE t (a FOO)",
		"CREATE TABLE t (a INT) UNIQUE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 0",
		"CREATE TABLE t (a INT) ENGINE=MYSQL",
		"CREATE TABLE t (a INT) PROPERTIES ('a' 'b')",
		"CREATE TABLE t (a INT) garbage",
		"CREATE TABLE t (a INT COMMENT 'x) ",
		"SELECT 1",
	} {
		if _, err := ParseCreateTable(sql); err == nil {
			t.Errorf("ParseCreateTable(%q): expected an error", sql)
		}
	}
}

func TestCreateTableValidationTexts(t *testing.T) {
	cases := []struct{ ddl, want string }{
		{`CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		  PROPERTIES ("binlog.enable" = "true", "binlog.format" = "row")`, "Invalid binlog format value: row"},
		{`CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		  PROPERTIES ("enable_unique_key_merge_on_write" = "false", "binlog.enable" = "true", "binlog.format" = "ROW")`,
			"Only duplicate and mow table model support binlog<Row>"},
		{`CREATE TABLE t (k INT, v INT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		  PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`, "Only duplicate and mow table model support binlog<Row>"},
		{`CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		  PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`,
			"Duplicate table model don't support record historical value"},
		{`CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		  PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.ttl_seconds" = "0")`,
			"ROW binlog.ttl_seconds must be greater than 0"},
		{`CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) CLUSTER BY(v) DISTRIBUTED BY HASH(k) BUCKETS 1
		  PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`,
			"Unique merge-on-write tables with cluster keys do not support binlog<Row>"},
		{`CREATE TABLE t (k INT, v INT) UNIQUE KEY(v) DISTRIBUTED BY HASH(v) BUCKETS 1`, "Key columns should be a ordered prefix of the schema"},
		{`CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(v) BUCKETS 1`, "Distribution column[v] is not key column"},
		{`CREATE TABLE t (k DOUBLE, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1`, "Float or double can not used as a key"},
		{`CREATE TABLE t (k INT, k INT)`, "Duplicate column name 'k'"},
		{`CREATE TABLE t (k INT AUTO_INCREMENT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		  PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`, "auto-increment"},
		{`CREATE TABLE t (k INT, v INT DEFAULT 'x')`, "Invalid default value for 'v'"},
	}
	for _, c := range cases {
		s := newStoreWith(t, nil)
		ct, err := ParseCreateTable(c.ddl)
		if err != nil {
			t.Fatalf("parse %q: %v", c.ddl, err)
		}
		err = s.CreateTable("db", ct.Def, false)
		wantErrText(t, err, c.want)
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error %T is not *Error", err)
		}
	}
}

func TestCreateTableCatalog(t *testing.T) {
	s := newStoreWith(t, nil, ordersDDL)
	ct, _ := ParseCreateTable(ordersDDL)
	err := s.CreateTable("db", ct.Def, false)
	if e, ok := err.(*Error); !ok || e.Code != CodeTableExists {
		t.Fatalf("duplicate create: %v", err)
	}
	if err := s.CreateTable("db", ct.Def, true); err != nil {
		t.Fatalf("IF NOT EXISTS: %v", err)
	}
	if err := s.CreateTable("nodb", ct.Def, false); err == nil || err.(*Error).Code != CodeUnknownDB {
		t.Fatalf("unknown db: %v", err)
	}
	if _, err := s.Table("db", "nope"); err == nil || err.(*Error).Code != CodeUnknownTable {
		t.Fatalf("unknown table: %v", err)
	}
	tables, _ := s.Tables("db")
	if strings.Join(tables, ",") != "orders" || strings.Join(s.Databases(), ",") != "db" {
		t.Fatalf("tables %v dbs %v", tables, s.Databases())
	}
	info, err := s.Table("db", "orders")
	if err != nil {
		t.Fatal(err)
	}
	if !info.BinlogEnabled || !info.NeedHistoricalValue || info.TTLSeconds != 86400 || !info.MergeOnWrite {
		t.Fatalf("info = %+v", info)
	}
	for _, want := range []string{
		"CREATE TABLE `orders` (", "`order_id` bigint NULL,", "`amount` decimal(10,2) NULL",
		"UNIQUE KEY(`order_id`)", "DISTRIBUTED BY HASH(`order_id`) BUCKETS 8",
		`"binlog.enable" = "true"`, `"binlog.format" = "ROW"`, `"binlog.need_historical_value" = "true"`,
		`"binlog.ttl_seconds" = "86400"`, `"enable_unique_key_merge_on_write" = "true"`, `"replication_num" = "1"`,
	} {
		if !strings.Contains(info.ShowCreate, want) {
			t.Errorf("SHOW CREATE lacks %q:\n%s", want, info.ShowCreate)
		}
	}
	if err := s.DropTable("db", "orders", false); err != nil {
		t.Fatal(err)
	}
	if err := s.DropTable("db", "orders", true); err != nil {
		t.Fatal(err)
	}
	if err := s.DropDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	if err := s.DropDatabase("db", false); err == nil {
		t.Fatal("dropping a missing database should fail")
	}
}

func TestSetProperties(t *testing.T) {
	s := newStoreWith(t, nil, ordersDDL, `CREATE TABLE nohist (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`)
	if err := s.SetProperties("db", "orders", map[string]string{"binlog.ttl_seconds": "60"}); err != nil {
		t.Fatal(err)
	}
	info, _ := s.Table("db", "orders")
	if info.TTLSeconds != 60 || !strings.Contains(info.ShowCreate, `"binlog.ttl_seconds" = "60"`) {
		t.Fatalf("ttl not altered: %d\n%s", info.TTLSeconds, info.ShowCreate)
	}
	wantErrText(t, s.SetProperties("db", "orders", map[string]string{"binlog.ttl_seconds": "-1"}), "ROW binlog.ttl_seconds must be greater than 0")
	wantErrText(t, s.SetProperties("db", "orders", map[string]string{"binlog.need_historical_value": "false"}),
		"not support change binlog.need_historical_value from true to false")
	wantErrText(t, s.SetProperties("db", "orders", map[string]string{"binlog.enable": "false"}), "can't disable binlog when format is [Row]")
	if err := s.SetProperties("db", "nohist", map[string]string{"binlog.need_historical_value": "true"}); err != nil {
		t.Fatalf("enabling before-images: %v", err)
	}
	if info, _ := s.Table("db", "nohist"); !info.NeedHistoricalValue {
		t.Fatal("need_historical_value not enabled")
	}
	// A failed ALTER changes nothing.
	if info, _ := s.Table("db", "orders"); info.TTLSeconds != 60 || !info.NeedHistoricalValue {
		t.Fatalf("failed ALTER leaked: %+v", info)
	}
}
