package sqlengine

import (
	"reflect"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

const ordersDDL = `CREATE TABLE orders (
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
    "binlog.need_historical_value" = "true"
)`

// setupOrders replays doris-facts §14: batch 1 at 10:00, batch 2 at 10:05
// (UTC session), then moves the clock to 10:15.
func setupOrders(t *testing.T) (*Session, *testClock) {
	t.Helper()
	clock := &testClock{now: time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC)}
	eng, _ := newTestEngine(t, clock)
	s := eng.NewSession("root")
	t.Cleanup(s.Close)
	mustExec(t, s, "SET time_zone = 'UTC'")
	mustExec(t, s, "CREATE DATABASE sales")
	mustExec(t, s, "USE sales")
	mustExec(t, s, ordersDDL)
	clock.Set(time.Date(2026, 9, 14, 10, 0, 0, 0, time.UTC))
	mustExec(t, s, "INSERT INTO orders VALUES (1, 'created', 100.00), (2, 'created', 200.00), (3, 'created', 300.00)")
	clock.Set(time.Date(2026, 9, 14, 10, 5, 0, 0, time.UTC))
	mustExec(t, s, "INSERT INTO orders VALUES (1, 'paid', 100.00)")
	mustExec(t, s, "DELETE FROM orders WHERE order_id = 2")
	mustExec(t, s, "INSERT INTO orders VALUES (4, 'created', 400.00)")
	mustExec(t, s, "INSERT INTO orders VALUES (5, 'created', 500.00)")
	mustExec(t, s, "DELETE FROM orders WHERE order_id = 5")
	clock.Set(time.Date(2026, 9, 14, 10, 15, 0, 0, time.UTC))
	return s, clock
}

func ordersWindow(incrType string) string {
	return `"startTimestamp" = "2026-09-14 10:03:00", "endTimestamp" = "2026-09-14 10:10:00", "incrementType" = "` + incrType + `"`
}

func TestOrdersExample(t *testing.T) {
	s, _ := setupOrders(t)
	cases := []struct {
		name string
		sql  string
		want [][]string
	}{
		{"min_delta", "SELECT order_id, status, amount, __DORIS_BINLOG_OP__ AS op FROM orders@incr(" + ordersWindow("MIN_DELTA") + ") ORDER BY order_id, op",
			[][]string{{"1", "created", "100.00", "2"}, {"1", "paid", "100.00", "3"}, {"2", "created", "200.00", "1"}, {"4", "created", "400.00", "0"}}},
		{"append_only", "SELECT order_id, status, amount, __DORIS_BINLOG_OP__ AS op FROM orders@incr(" + ordersWindow("APPEND_ONLY") + ") ORDER BY order_id",
			[][]string{{"4", "created", "400.00", "0"}, {"5", "created", "500.00", "0"}}},
		{"detail", "SELECT order_id, status, amount, __DORIS_BINLOG_OP__ AS op FROM orders@incr(" + ordersWindow("DETAIL") + ") ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, op",
			[][]string{{"1", "created", "100.00", "2"}, {"1", "paid", "100.00", "3"}, {"2", "created", "200.00", "1"}, {"4", "created", "400.00", "0"}, {"5", "created", "500.00", "0"}, {"5", "created", "500.00", "1"}}},
		{"no_window", "SELECT order_id, status, amount, __DORIS_BINLOG_OP__ AS op FROM orders@incr() ORDER BY order_id",
			[][]string{{"1", "paid", "100.00", "0"}, {"3", "created", "300.00", "0"}, {"4", "created", "400.00", "0"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cols, rows := mustRows(t, s, tc.sql)
			if got := textRows(cols, rows); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("rows:\n got %v\nwant %v", got, tc.want)
			}
			wantCols := []ResultColumn{
				{Name: "order_id", Type: storage.Type{Kind: storage.BigInt}},
				{Name: "status", Type: storage.Type{Kind: storage.Varchar, Length: 16}},
				{Name: "amount", Type: storage.Type{Kind: storage.Decimal, Precision: 10, Scale: 2}},
				{Name: "op", Type: storage.Type{Kind: storage.TinyInt}},
			}
			for i, c := range cols {
				if c.Name != wantCols[i].Name || c.Type.String() != wantCols[i].Type.String() {
					t.Fatalf("column %d = %s %s, want %s %s", i, c.Name, c.Type, wantCols[i].Name, wantCols[i].Type)
				}
			}
			if _, ok := rows[0][0].(int64); !ok {
				t.Fatalf("order_id value is %T, want int64", rows[0][0])
			}
		})
	}
}
