package dorissim

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// wantAlterError runs an ALTER over MySQL and checks Doris's text.
func wantAlterError(t *testing.T, s *Server, q, msg string) {
	t.Helper()
	conn := mysqlConn(t, s)
	_, err := conn.ExecContext(testCtx(t), q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || !strings.Contains(me.Message, msg) {
		t.Errorf("%s:\n got %v\nwant %q", q, err, msg)
	}
}

// TestAcceptanceSchemaChange: ADD, DROP and MODIFY COLUMN on a table without
// row binlog, with Doris's refusals (SchemaChangeHandler, Column.
// checkSchemaChangeAllowed, ColumnType's schema change matrix; see
// docs/contracts.md), and the rows keeping their values across a widening.
func TestAcceptanceSchemaChange(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s,
		"CREATE DATABASE sales",
		`CREATE TABLE sales.sc (id BIGINT NOT NULL, name VARCHAR(64), qty INT, price DECIMAL(10, 2), seq BIGINT)
UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1", "function_column.sequence_col" = "seq")`,
		`CREATE TABLE sales.bl (id BIGINT NOT NULL, qty INT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`,
		"INSERT INTO sales.sc VALUES (1, 'a', 2147483647, 12345678.91, 1)",
		"ALTER TABLE sales.sc ADD COLUMN extra INT NULL",
		"ALTER TABLE sales.sc MODIFY COLUMN qty BIGINT NULL",
		"ALTER TABLE sales.sc MODIFY COLUMN price DECIMAL(12, 2) NULL",
		"ALTER TABLE sales.sc MODIFY COLUMN name VARCHAR(100) NULL",
		"UPDATE sales.sc SET qty = 4294967296, seq = 2 WHERE id = 1",
	)
	conn := mysqlConn(t, s)
	rows, err := mysqlText(testCtx(t), conn, "SELECT id, name, qty, price, extra FROM sales.sc")
	if err != nil || len(rows) != 1 || strings.Join(rows[0], ",") != "1,a,4294967296,12345678.91,NULL" {
		t.Fatalf("after the widenings: %v %v", rows, err)
	}
	ddl, err := mysqlText(testCtx(t), conn, "SHOW CREATE TABLE sales.sc")
	if err != nil || len(ddl) != 1 || !strings.Contains(strings.ToLower(ddl[0][1]), "`qty` bigint") {
		t.Fatalf("SHOW CREATE TABLE after MODIFY: %v %v", ddl, err)
	}
	for q, msg := range map[string]string{
		"ALTER TABLE sales.sc ADD COLUMN extra INT NULL":           "Can not add column which already exists in base table: extra",
		"ALTER TABLE sales.sc ADD COLUMN extra BIGINT NULL":        "Repeatedly add same column with different definition: extra",
		"ALTER TABLE sales.sc DROP COLUMN nope":                    "Column does not exists: nope",
		"ALTER TABLE sales.sc DROP COLUMN id":                      "Can not drop key column in Unique data model table",
		"ALTER TABLE sales.sc DROP COLUMN seq":                     "Can not drop sequence mapping column[seq] in Unique data model table[sc]",
		"ALTER TABLE sales.sc MODIFY COLUMN qty INT NULL":          "Can not change BIGINT to INT",
		"ALTER TABLE sales.sc MODIFY COLUMN qty DATE NULL":         "Can not change BIGINT to DATEV2",
		"ALTER TABLE sales.sc MODIFY COLUMN name VARCHAR(10) NULL": "Shorten type length is prohibited, srcType=varchar(100), dstType=varchar(10)",
		"ALTER TABLE sales.sc MODIFY COLUMN extra INT NOT NULL":    "Can not change from nullable to non-nullable",
		"ALTER TABLE sales.sc MODIFY COLUMN seq LARGEINT NULL":     "Can not alter sequence column[seq]",
		"ALTER TABLE sales.sc MODIFY COLUMN nope INT NULL":         "Column[nope] does not exists",
		"ALTER TABLE sales.bl MODIFY COLUMN qty BIGINT NULL":       "Not allowed to perform current operation on Table With binlog<row>",
	} {
		wantAlterError(t, s, q, msg)
	}
}

// TestAcceptanceStreamLoadJSONKeys: a JSON row's keys that the table lacks
// are ignored, and a nullable column the row lacks loads its default or
// NULL (new_json_reader.cpp, _fill_missing_column).
func TestAcceptanceStreamLoadJSONKeys(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s, "CREATE DATABASE sales",
		`CREATE TABLE sales.jk (id BIGINT NOT NULL, name VARCHAR(16), n INT DEFAULT "5") DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	out := streamLoad(t, s, "jk", `{"id":1,"name":"a","n":1,"unknown":"dropped"}`+"\n"+`{"id":2,"other":3}`+"\n",
		map[string]string{"label": "jk-1", "format": "json", "read_json_by_line": "true"})
	if out["NumberLoadedRows"] != float64(2) {
		t.Fatalf("load: %v", out)
	}
	rows, err := mysqlText(testCtx(t), mysqlConn(t, s), "SELECT id, name, n FROM sales.jk ORDER BY id")
	if err != nil || len(rows) != 2 || strings.Join(rows[0], ",") != "1,a,1" || strings.Join(rows[1], ",") != "2,NULL,5" {
		t.Fatalf("rows: %v %v", rows, err)
	}
}
