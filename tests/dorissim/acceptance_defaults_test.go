package dorissim

import (
	"testing"
)

// TestAcceptanceColumnDefaults follows a column added with a DEFAULT through
// every write path and both read protocols. As in Doris, the rows and the
// binlog records written before the light ADD COLUMN read the default; an
// INSERT with a column list and a partial-column stream load creating a key
// write it; and the before-image of an old row updated later carries it.
func TestAcceptanceColumnDefaults(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	for _, q := range []string{
		"CREATE DATABASE sales",
		`CREATE TABLE sales.dflt (id INT NOT NULL, v VARCHAR(8), n INT NOT NULL DEFAULT "5")
UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`,
		"INSERT INTO sales.dflt (id, v) VALUES (1, 'old')",
		"ALTER TABLE sales.dflt ADD COLUMN w INT DEFAULT '7'",
		"INSERT INTO sales.dflt (id, v) VALUES (2, 'ins')",
	} {
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	clock.Set(at("10:01:00"))
	streamLoad(t, s, "dflt", "1,upd\n3,new\n", map[string]string{
		"label": "dflt-partial", "column_separator": ",", "columns": "id,v", "partial_columns": "true"})
	clock.Set(at("10:05:00"))

	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	detail := "SELECT id, v, n, w, __DORIS_BINLOG_OP__ AS op FROM sales.dflt@incr('startTimestamp' = '2026-09-14 09:59:00', " +
		"'endTimestamp' = '2026-09-14 10:05:00', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, op"
	want := [][]string{
		{"1", "old", "5", "7", "0"}, // written before the ADD COLUMN
		{"2", "ins", "5", "7", "0"},
		{"1", "old", "5", "7", "2"}, {"1", "upd", "5", "7", "3"}, // the old row's before-image carries the default
		{"3", "new", "5", "7", "0"}, // a key created by a partial-column load
	}
	if got, err := fs.text(detail); err != nil || !equalRows(got, want) {
		t.Errorf("flight DETAIL:\n got %v (err %v)\nwant %v", got, err, want)
	}
	if got, err := mysqlText(testCtx(t), conn, detail); err != nil || !equalRows(got, want) {
		t.Errorf("mysql DETAIL:\n got %v (err %v)\nwant %v", got, err, want)
	}
	table := [][]string{{"1", "upd", "5", "7"}, {"2", "ins", "5", "7"}, {"3", "new", "5", "7"}}
	if got, err := fs.text("SELECT id, v, n, w FROM sales.dflt ORDER BY id"); err != nil || !equalRows(got, table) {
		t.Errorf("table:\n got %v (err %v)\nwant %v", got, err, table)
	}
}
