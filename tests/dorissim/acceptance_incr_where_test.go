package dorissim

import "testing"

// TestAcceptanceIncrWhere: @incr takes a WHERE clause (doris-facts §5
// grammar), evaluated on each output row: a filter on the hidden
// __DORIS_BINLOG_OP__ drops update_before rows, and a filter on a column
// keeps one half of an update whose halves differ on it. The same over
// MySQL and over Flight SQL, and with the exact shape the input sends.
func TestAcceptanceIncrWhere(t *testing.T) {
	s := startSim(t, Config{})
	conn := mysqlConn(t, s)
	mustExecAll(t, s, "CREATE DATABASE sales",
		"CREATE TABLE sales.w (id BIGINT, qty INT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 "+
			`PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`,
		"INSERT INTO sales.w VALUES (1, 1), (2, 5)",
		"UPDATE sales.w SET qty = 9 WHERE id = 1",
		"DELETE FROM sales.w WHERE id = 2")
	fs := newFlightSession(t, s)
	incr := func(where string) string {
		return "SELECT `id`, `qty`, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM `sales`.`w`@incr(" +
			"'startTimestamp' = '0', 'incrementType' = 'DETAIL') WHERE " + where +
			" ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__"
	}
	project := func(rows [][]string) [][]string {
		out := make([][]string, len(rows))
		for i, r := range rows {
			out[i] = []string{r[0], r[1], r[4]}
		}
		return out
	}
	for _, c := range []struct {
		where string
		want  [][]string
	}{
		{"__DORIS_BINLOG_OP__ <> 2", [][]string{{"1", "1", "0"}, {"2", "5", "0"}, {"1", "9", "3"}, {"2", "5", "1"}}},
		{"(qty < 3)", [][]string{{"1", "1", "0"}, {"1", "1", "2"}}},
		{"__DORIS_BINLOG_OP__ <> 2 AND (qty > 3 OR id = 1)", [][]string{{"1", "1", "0"}, {"2", "5", "0"}, {"1", "9", "3"}, {"2", "5", "1"}}},
		{"(qty > 8)", [][]string{{"1", "9", "3"}}},
	} {
		q := incr(c.where)
		got, err := mysqlText(testCtx(t), conn, q)
		if err != nil || !equalRows(project(got), c.want) {
			t.Errorf("mysql WHERE %s:\n got %v (err %v)\nwant %v", c.where, got, err, c.want)
		}
		got, err = fs.text(q)
		if err != nil || !equalRows(project(got), c.want) {
			t.Errorf("flight WHERE %s:\n got %v (err %v)\nwant %v", c.where, got, err, c.want)
		}
	}
}
