package dorissim

import (
	"testing"
	"time"
)

// acceptOrdersDDL is the orders table of the Doris Row Binlog docs
// (doris-facts §14).
const acceptOrdersDDL = `CREATE TABLE sales.orders (
    order_id BIGINT,
    status   VARCHAR(16),
    amount   DECIMAL(10, 2)
)
UNIQUE KEY(order_id)
DISTRIBUTED BY HASH(order_id) BUCKETS 8
PROPERTIES (
    "enable_unique_key_merge_on_write" = "true",
    "binlog.enable" = "true",
    "binlog.format" = "ROW",
    "binlog.need_historical_value" = "true",
    "binlog.ttl_seconds" = "86400"
)`

// seedOrders replays the two documented batches, over the MySQL protocol,
// with commits at 2026-09-14 10:00 and 10:05 UTC, and leaves the clock at 10:20.
func seedOrders(t *testing.T) (*Server, *fakeClock) {
	t.Helper()
	clock := newFakeClock(time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC))
	s := startSim(t, Config{Clock: clock.Now})
	conn := mysqlConn(t, s)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(testCtx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE sales")
	exec(acceptOrdersDDL)
	clock.Set(time.Date(2026, 9, 14, 10, 0, 0, 0, time.UTC))
	exec("INSERT INTO sales.orders VALUES (1, 'created', 100.00), (2, 'created', 200.00), (3, 'created', 300.00)")
	clock.Set(time.Date(2026, 9, 14, 10, 5, 0, 0, time.UTC))
	exec("INSERT INTO sales.orders VALUES (1, 'paid', 100.00)")
	exec("DELETE FROM sales.orders WHERE order_id = 2")
	exec("INSERT INTO sales.orders VALUES (4, 'created', 400.00)")
	exec("INSERT INTO sales.orders VALUES (5, 'created', 500.00)")
	exec("DELETE FROM sales.orders WHERE order_id = 5")
	clock.Set(time.Date(2026, 9, 14, 10, 20, 0, 0, time.UTC))
	return s, clock
}

const ordersSelect = "SELECT order_id, status, amount, __DORIS_BINLOG_OP__ AS op FROM sales.orders@incr("

func ordersWindowParams(incrType string) string {
	return `"startTimestamp" = "2026-09-14 10:03:00", "endTimestamp" = "2026-09-14 10:10:00", "incrementType" = "` + incrType + `")`
}

// TestAcceptanceOrdersExample checks the documented MIN_DELTA, APPEND_ONLY,
// DETAIL and no-window results of the orders example, row for row, over
// the MySQL protocol and over Arrow Flight SQL.
func TestAcceptanceOrdersExample(t *testing.T) {
	s, _ := seedOrders(t)
	conn := mysqlConn(t, s)
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	cases := []struct {
		name, sql string
		want      [][]string
	}{
		{"MIN_DELTA", ordersSelect + ordersWindowParams("MIN_DELTA") + " ORDER BY order_id, op", [][]string{
			{"1", "created", "100.00", "2"},
			{"1", "paid", "100.00", "3"},
			{"2", "created", "200.00", "1"},
			{"4", "created", "400.00", "0"},
		}},
		{"APPEND_ONLY", ordersSelect + ordersWindowParams("APPEND_ONLY") + " ORDER BY order_id", [][]string{
			{"4", "created", "400.00", "0"},
			{"5", "created", "500.00", "0"},
		}},
		{"DETAIL", ordersSelect + ordersWindowParams("DETAIL") + " ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, op", [][]string{
			{"1", "created", "100.00", "2"},
			{"1", "paid", "100.00", "3"},
			{"2", "created", "200.00", "1"},
			{"4", "created", "400.00", "0"},
			{"5", "created", "500.00", "0"},
			{"5", "created", "500.00", "1"},
		}},
		{"no window", ordersSelect + ") ORDER BY order_id", [][]string{
			{"1", "paid", "100.00", "0"},
			{"3", "created", "300.00", "0"},
			{"4", "created", "400.00", "0"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mysqlText(testCtx(t), conn, tc.sql)
			if err != nil || !equalRows(got, tc.want) {
				t.Errorf("mysql %s:\n got %v (err %v)\nwant %v", tc.sql, got, err, tc.want)
			}
			got, err = fs.text(tc.sql)
			if err != nil || !equalRows(got, tc.want) {
				t.Errorf("flight %s:\n got %v (err %v)\nwant %v", tc.sql, got, err, tc.want)
			}
		})
	}
}

// TestAcceptanceOrdersWindowsChain checks that consecutive windows split at
// a batch boundary give the DETAIL records of the whole history exactly
// once: batch 1 only in the first window, batch 2 only in the second.
func TestAcceptanceOrdersWindowsChain(t *testing.T) {
	s, _ := seedOrders(t)
	fs := newFlightSession(t, s)
	if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
		t.Fatalf("flight set time_zone: %v", err)
	}
	window := func(start, end string) [][]string {
		t.Helper()
		q := ordersSelect + `'startTimestamp' = '` + start + `', 'endTimestamp' = '` + end +
			`', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, op`
		rows, err := fs.text(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return rows
	}
	first := window("2026-09-14 09:00:00", "2026-09-14 10:05:00")
	second := window("2026-09-14 10:05:00", "2026-09-14 10:20:00")
	wantFirst := [][]string{{"1", "created", "100.00", "0"}, {"2", "created", "200.00", "0"}, {"3", "created", "300.00", "0"}}
	if !equalRows(first, wantFirst) {
		t.Errorf("window before 10:05:\n got %v\nwant %v", first, wantFirst)
	}
	if len(second) != 6 || second[0][3] != "2" || second[5][3] != "1" {
		t.Errorf("window from 10:05: got %v, want the 6 DETAIL records of batch 2", second)
	}
}
