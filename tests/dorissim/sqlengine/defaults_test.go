package sqlengine

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// Doris fills a light ADD COLUMN's default into every existing row and into
// the binlog records read back through the new schema, and an INSERT that
// omits the column writes the default, so a later update's before-image of
// an old row carries it too.
func TestAddColumnDefaultFillsOldRowsInsertsAndBinlog(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, "INSERT INTO kv VALUES (1, 'a')")
	mustExec(t, s, "ALTER TABLE kv ADD COLUMN w INT DEFAULT '7'")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (2, 'b')")
	mustExec(t, s, "INSERT INTO kv (k, v, w) VALUES (3, 'c', NULL)")
	mustExec(t, s, "UPDATE kv SET v = 'a2' WHERE k = 1")
	cols, rows := mustRows(t, s, "SELECT k, v, w FROM kv ORDER BY k")
	want := [][]string{{"1", "a2", "7"}, {"2", "b", "7"}, {"3", "c", "NULL"}}
	if got := textRows(cols, rows); !reflect.DeepEqual(got, want) {
		t.Fatalf("table = %v, want %v", got, want)
	}
	cols, rows = mustRows(t, s, `SELECT k, v, w, __DORIS_BINLOG_OP__ FROM kv@incr('incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__`)
	want = [][]string{
		{"1", "a", "7", "0"}, // written before the ALTER, read through the new schema
		{"2", "b", "7", "0"},
		{"3", "c", "NULL", "0"},                     // an explicit NULL stays NULL
		{"1", "a", "7", "2"}, {"1", "a2", "7", "3"}, // before-image of the old row carries the default
	}
	if got := textRows(cols, rows); !reflect.DeepEqual(got, want) {
		t.Fatalf("binlog records:\n got %v\nwant %v", got, want)
	}
}

func TestCreateTableDefaultsFillOmittedColumns(t *testing.T) {
	s, _, clock := newKV(t)
	clock.Set(time.Date(2026, 3, 4, 23, 30, 15, 123456789, time.UTC))
	mustExec(t, s, `CREATE TABLE d1 (
  id INT NOT NULL,
  n INT NOT NULL DEFAULT "5",
  neg BIGINT DEFAULT -3,
  s VARCHAR(10) DEFAULT 'x''y',
  amt DECIMAL(10, 2) DEFAULT "1.5",
  ts DATETIME DEFAULT CURRENT_TIMESTAMP,
  ts3 DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  day DATE DEFAULT CURRENT_DATE,
  plain INT
) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`)
	mustExec(t, s, "SET time_zone = '+08:00'")
	mustExec(t, s, "INSERT INTO d1 (id) VALUES (1)")
	mustExec(t, s, "INSERT INTO d1 (id, n, s, ts) VALUES (2, 9, NULL, '2020-01-01 00:00:00')")
	cols, rows := mustRows(t, s, "SELECT * FROM d1 ORDER BY id")
	want := [][]string{
		// CURRENT_TIMESTAMP follows the session time_zone: 23:30 UTC is 07:30 the next day at +08:00.
		{"1", "5", "-3", "x'y", "1.50", "2026-03-05 07:30:15", "2026-03-05 07:30:15.123", "2026-03-05", "NULL"},
		{"2", "9", "-3", "NULL", "1.50", "2020-01-01 00:00:00", "2026-03-05 07:30:15.123", "2026-03-05", "NULL"},
	}
	if got := textRows(cols, rows); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows:\n got %v\nwant %v", got, want)
	}
	_, rows = mustRows(t, s, "SHOW CREATE TABLE d1")
	ddl := rows[0][1].(string)
	for _, frag := range []string{"`n` int NOT NULL DEFAULT \"5\"", "DEFAULT CURRENT_TIMESTAMP,", "`ts3` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)", "DEFAULT CURRENT_DATE"} {
		if !strings.Contains(ddl, frag) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", frag, ddl)
		}
	}
}

// The realDefaultValue of a CURRENT_TIMESTAMP column added later is the
// ALTER's time: old rows keep reading it however late they are read, while
// new rows get their own insert time.
func TestAddColumnCurrentTimestampIsTheAlterTime(t *testing.T) {
	s, _, clock := newKV(t)
	mustExec(t, s, "INSERT INTO kv VALUES (1, 'a')")
	clock.Set(time.Date(2026, 1, 2, 3, 10, 0, 0, time.UTC))
	mustExec(t, s, "ALTER TABLE kv ADD COLUMN added DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)")
	clock.Set(time.Date(2026, 1, 2, 3, 20, 0, 0, time.UTC))
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (2, 'b')")
	cols, rows := mustRows(t, s, "SELECT k, added FROM kv ORDER BY k")
	want := [][]string{{"1", "2026-01-02 03:10:00.000"}, {"2", "2026-01-02 03:20:00.000"}}
	if got := textRows(cols, rows); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
}

func TestDefaultErrorsUseDorisTexts(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, "CREATE TABLE nn (id INT, n INT NOT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
	if e := queryErr(t, s, "INSERT INTO nn (id) VALUES (1)"); e.Message != "Column has no default value, column=n" {
		t.Errorf("omitted NOT NULL column: %q", e.Message)
	}
	const wrongType = "Types other than DATETIME and DATETIMEV2 cannot use current_timestamp as the default value"
	if e := queryErr(t, s, "CREATE TABLE bad (id INT, v VARCHAR(100) DEFAULT CURRENT_TIMESTAMP) DISTRIBUTED BY HASH(id) BUCKETS 1"); !strings.Contains(e.Message, wrongType) {
		t.Errorf("CREATE with CURRENT_TIMESTAMP on VARCHAR: %q", e.Message)
	}
	if e := queryErr(t, s, "ALTER TABLE kv ADD COLUMN dt VARCHAR(100) DEFAULT CURRENT_TIMESTAMP"); !strings.Contains(e.Message, wrongType) {
		t.Errorf("ADD COLUMN with CURRENT_TIMESTAMP on VARCHAR: %q", e.Message)
	}
	if e := queryErr(t, s, "ALTER TABLE kv ADD COLUMN bad INT DEFAULT 'abc'"); !strings.Contains(e.Message, "Invalid default value for 'bad'") {
		t.Errorf("ADD COLUMN with a non-numeric INT default: %q", e.Message)
	}
}
