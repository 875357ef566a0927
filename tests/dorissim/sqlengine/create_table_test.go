package sqlengine

import (
	"strings"
	"testing"
	"time"
)

func newEmpty(t *testing.T) *Session {
	t.Helper()
	eng, _ := newTestEngine(t, &testClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	s := eng.NewSession("root")
	t.Cleanup(s.Close)
	return s
}

func showCreateOf(t *testing.T, s *Session, table string) string {
	t.Helper()
	_, rows := mustRows(t, s, "SHOW CREATE TABLE "+table)
	return rows[0][1].(string)
}

// The statements doris_load's create_tables writes (doris/ddl), as Doris
// takes them: key models, HASH and RANDOM distribution, BUCKETS AUTO,
// single-quoted PROPERTIES, and SHOW CREATE TABLE reflecting each.
func TestCreateTableKeyModelsAndDistribution(t *testing.T) {
	s := newEmpty(t)
	mustExec(t, s, "CREATE DATABASE IF NOT EXISTS `dst`")
	mustExec(t, s, "CREATE DATABASE IF NOT EXISTS `dst`")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS `dst`.`u` (\n"+
		"  `k1` varchar(32) NOT NULL COMMENT 'the key',\n  `k2` largeint NOT NULL,\n  `amount` decimal(20,4) NULL,\n"+
		"  `at` datetime(6) NULL,\n  `tags` array<text> NULL,\n  `doc` json NULL,\n  `m` map<text,int> NULL,\n  `s` struct<a:int,b:text> NULL\n"+
		") ENGINE=OLAP\nUNIQUE KEY(`k1`, `k2`)\nCOMMENT 'it''s the source'\nDISTRIBUTED BY HASH(`k1`, `k2`) BUCKETS AUTO\n"+
		"PROPERTIES (\n'enable_unique_key_merge_on_write' = 'true',\n'replication_num' = '1'\n)")
	text := showCreateOf(t, s, "`dst`.`u`")
	for _, want := range []string{
		"`k1` varchar(32) NOT NULL COMMENT \"the key\"", "`k2` largeint NOT NULL", "`amount` decimal(20,4) NULL",
		"`at` datetime(6) NULL", "`tags` array<string> NULL", "`doc` json NULL", "UNIQUE KEY(`k1`, `k2`)",
		"COMMENT \"it's the source\"", "DISTRIBUTED BY HASH(`k1`, `k2`) BUCKETS AUTO", `"enable_unique_key_merge_on_write" = "true"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", want, text)
		}
	}
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS `dst`.`d` (`ts` DATETIME(6) NOT NULL, `msg` STRING NULL) ENGINE=OLAP DUPLICATE KEY(`ts`) DISTRIBUTED BY RANDOM BUCKETS AUTO")
	if text := showCreateOf(t, s, "`dst`.`d`"); !strings.Contains(text, "DUPLICATE KEY(`ts`)") || !strings.Contains(text, "DISTRIBUTED BY RANDOM BUCKETS AUTO") {
		t.Errorf("DUPLICATE KEY table:\n%s", text)
	}
	mustExec(t, s, "CREATE TABLE `dst`.`n` (`a` INT, `b` INT) DISTRIBUTED BY RANDOM BUCKETS 3")
	if text := showCreateOf(t, s, "`dst`.`n`"); !strings.Contains(text, "DISTRIBUTED BY RANDOM BUCKETS 3") {
		t.Errorf("RANDOM BUCKETS 3:\n%s", text)
	}
	// Without a key clause Doris picks the sort key itself
	// (CreateTableInfo.validate): leading columns up to three, stopping at a
	// type that cannot be a key and after a VARCHAR.
	mustExec(t, s, "CREATE TABLE `dst`.`auto1` (`a` INT, `b` BIGINT, `c` VARCHAR(10), `d` INT)")
	if text := showCreateOf(t, s, "`dst`.`auto1`"); !strings.Contains(text, "DUPLICATE KEY(`a`, `b`, `c`)") || !strings.Contains(text, "DISTRIBUTED BY RANDOM BUCKETS AUTO") {
		t.Errorf("default keys and distribution:\n%s", text)
	}
	mustExec(t, s, "CREATE TABLE `dst`.`auto2` (`a` INT, `f` DOUBLE, `c` INT)")
	if text := showCreateOf(t, s, "`dst`.`auto2`"); !strings.Contains(text, "DUPLICATE KEY(`a`)") {
		t.Errorf("default keys stop at DOUBLE:\n%s", text)
	}
	// A first column that cannot be a key needs the property.
	if se := queryErr(t, s, "CREATE TABLE `dst`.`bad` (`s` STRING, `a` INT)"); se.Message != "The olap table first column could not be float, double, string or array, struct, map, please use decimal or varchar instead." {
		t.Errorf("STRING first column: %q", se.Message)
	}
	mustExec(t, s, "CREATE TABLE `dst`.`nokeys` (`s` STRING, `a` INT) DISTRIBUTED BY RANDOM BUCKETS AUTO PROPERTIES ('enable_duplicate_without_keys_by_default' = 'true')")
	if text := showCreateOf(t, s, "`dst`.`nokeys`"); strings.Contains(text, "KEY(") || !strings.Contains(text, `"enable_duplicate_without_keys_by_default" = "true"`) {
		t.Errorf("DUPLICATE without keys:\n%s", text)
	}
	mustExec(t, s, "INSERT INTO `dst`.`nokeys` VALUES ('x', 1), ('x', 1)")
	if _, rows := mustRows(t, s, "SELECT * FROM `dst`.`nokeys`"); len(rows) != 2 {
		t.Errorf("DUPLICATE without keys keeps every row: %v", rows)
	}
	for stmt, want := range map[string]string{
		"CREATE TABLE `dst`.`x` (`k` INT, `v` INT) UNIQUE KEY(`k`) DISTRIBUTED BY RANDOM BUCKETS AUTO":                                                "Create unique keys table should not contain random distribution desc",
		"CREATE TABLE `dst`.`x` (`k` INT, `v` INT) DUPLICATE KEY(`k`) DISTRIBUTED BY RANDOM PROPERTIES ('enable_unique_key_merge_on_write' = 'true')": "enable_unique_key_merge_on_write property only support unique key table",
		"CREATE TABLE `dst`.`x` (`__DORIS_DELETE_SIGN__` INT) DUPLICATE KEY(`__DORIS_DELETE_SIGN__`)":                                                 "Disable to create table column with name start with __DORIS_: __DORIS_DELETE_SIGN__",
		"CREATE TABLE `dst`.`x` (`k` INT, `v` INT) DUPLICATE KEY(`k`) PROPERTIES ('enable_duplicate_without_keys_by_default' = 'true')":               "table property 'enable_duplicate_without_keys_by_default' only can set 'true' when create olap table by default.",
		"CREATE TABLE `dst`.`u` (`k` INT) DUPLICATE KEY(`k`)":                                                                                         "Table 'u' already exists",
		"CREATE TABLE `nodb`.`x` (`k` INT) DUPLICATE KEY(`k`)":                                                                                        "Unknown database 'nodb'",
	} {
		se := queryErr(t, s, stmt)
		if !strings.Contains(se.Message, want) {
			t.Errorf("%s\n  error %q, want %q", stmt, se.Message, want)
		}
	}
	// IF NOT EXISTS leaves an existing table as it is.
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS `dst`.`u` (`other` INT) DUPLICATE KEY(`other`)")
	if text := showCreateOf(t, s, "`dst`.`u`"); !strings.Contains(text, "UNIQUE KEY(`k1`, `k2`)") {
		t.Errorf("IF NOT EXISTS changed the table:\n%s", text)
	}
}
