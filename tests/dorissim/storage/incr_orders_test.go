package storage

import (
	"testing"
)

// seedOrders reproduces the two batches of doris-facts §14.
func seedOrders(t *testing.T) (*Store, *fakeClock) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	insertRows(t, s, "orders", order(1, "created", "100.00"), order(2, "created", "200.00"), order(3, "created", "300.00"))
	clock.Set(at("2026-09-14 10:05:00"))
	insertRows(t, s, "orders", order(1, "paid", "100.00"))
	deleteRow(t, s, "orders", order(2, "", "0"))
	insertRows(t, s, "orders", order(4, "created", "400.00"))
	insertRows(t, s, "orders", order(5, "created", "500.00"))
	deleteRow(t, s, "orders", order(5, "", "0"))
	clock.Set(at("2026-09-14 10:20:00"))
	return s, clock
}

var ordersOut = []string{"order_id", "status", "amount", ColBinlogOp}

func TestOrdersMinDelta(t *testing.T) {
	s, _ := seedOrders(t)
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:03:00", "2026-09-14 10:10:00", "MIN_DELTA"))
	equalStrings(t, "MIN_DELTA", sorted(project(cols, rows, ordersOut...)), []string{
		"1|created|100.00|2",
		"1|paid|100.00|3",
		"2|created|200.00|1",
		"4|created|400.00|0",
	})
	assertTSOOrder(t, cols, rows)
}

func TestOrdersAppendOnly(t *testing.T) {
	s, _ := seedOrders(t)
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:03:00", "2026-09-14 10:10:00", "APPEND_ONLY"))
	equalStrings(t, "APPEND_ONLY", project(cols, rows, ordersOut...), []string{
		"4|created|400.00|0",
		"5|created|500.00|0",
	})
}

func TestOrdersDetail(t *testing.T) {
	s, _ := seedOrders(t)
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:03:00", "2026-09-14 10:10:00", "detail"))
	equalStrings(t, "DETAIL", project(cols, rows, ordersOut...), []string{
		"1|created|100.00|2",
		"1|paid|100.00|3",
		"2|created|200.00|1",
		"4|created|400.00|0",
		"5|created|500.00|0",
		"5|created|500.00|1",
	})
	assertTSOOrder(t, cols, rows)
	// UB and UA share TSO and LSN.
	if rows[0][3] != rows[1][3] || rows[0][4] != rows[1][4] {
		t.Fatalf("UB/UA positions differ: %v vs %v", rows[0][3:], rows[1][3:])
	}
}

func TestOrdersNoWindow(t *testing.T) {
	s, _ := seedOrders(t)
	cols, rows := incr(t, s, "orders", nil)
	equalStrings(t, "no window", sorted(project(cols, rows, ordersOut...)), []string{
		"1|paid|100.00|0",
		"3|created|300.00|0",
		"4|created|400.00|0",
	})
}

func TestIncrOutputColumns(t *testing.T) {
	s, _ := seedOrders(t)
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:03:00", "2026-09-14 10:10:00", "DETAIL"))
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name + ":" + c.Type.String()
	}
	equalStrings(t, "columns", names, []string{
		"order_id:BIGINT", "status:VARCHAR(16)", "amount:DECIMAL(10,2)",
		"__DORIS_BINLOG_TSO__:BIGINT", "__DORIS_BINLOG_LSN__:BIGINT", "__DORIS_BINLOG_OP__:TINYINT",
	})
	for _, r := range rows {
		tso := r[3].(int64)
		if got := TSOFromValue(tso).PhysicalMs; got != at("2026-09-14 10:05:00").UnixMilli() {
			t.Fatalf("row %v committed at %d, want batch 2", r, got)
		}
		if _, ok := r[5].(int8); !ok {
			t.Fatalf("op is %T, want int8", r[5])
		}
	}
}

// assertTSOOrder checks (TSO, LSN, OP) ascending order.
func assertTSOOrder(t *testing.T, cols []Column, rows [][]any) {
	t.Helper()
	n := len(cols)
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		ka := [3]int64{a[n-3].(int64), a[n-2].(int64), int64(a[n-1].(int8))}
		kb := [3]int64{b[n-3].(int64), b[n-2].(int64), int64(b[n-1].(int8))}
		if ka[0] > kb[0] || (ka[0] == kb[0] && (ka[1] > kb[1] || (ka[1] == kb[1] && ka[2] > kb[2]))) {
			t.Fatalf("rows out of (TSO, LSN, OP) order: %v then %v", ka, kb)
		}
	}
}

// TestRawRecordExample follows the Row Binlog docs example (doris-facts §8).
func TestRawRecordExample(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	insertRows(t, s, "orders", order(1, "created", "100.00"))
	insertRows(t, s, "orders", order(1, "paid", "100.00"))
	deleteRow(t, s, "orders", order(1, "", "0"))
	insertRows(t, s, "orders", order(1, "created", "150.00"))

	s.mu.RLock()
	tb := s.dbs["db"].tables["orders"]
	var raw []string
	for _, r := range tb.log {
		before := "NULL|NULL"
		if r.before != nil {
			before = FormatValue(tb.def.Columns[1].Type, r.before[1]) + "|" + FormatValue(tb.def.Columns[2].Type, r.before[2])
		}
		raw = append(raw, render(tb.def.Columns, [][]any{r.row})[0]+"|"+before+"|"+string(rune('0'+r.op)))
	}
	s.mu.RUnlock()
	// op: 0 insert, 1 update, 2 delete; the delete record carries the
	// pre-delete values.
	equalStrings(t, "raw records", raw, []string{
		"1|created|100.00|NULL|NULL|0",
		"1|paid|100.00|created|100.00|1",
		"1|paid|100.00|NULL|NULL|2",
		"1|created|150.00|NULL|NULL|0",
	})

	clock.Set(at("2026-09-14 10:01:00"))
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "DETAIL"))
	equalStrings(t, "DETAIL", project(cols, rows, ColBinlogOp, "order_id", "status", "amount"), []string{
		"0|1|created|100.00",
		"2|1|created|100.00",
		"3|1|paid|100.00",
		"1|1|paid|100.00",
		"0|1|created|150.00",
	})
	assertTSOOrder(t, cols, rows)
	_, rows = incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "APPEND_ONLY"))
	if len(rows) != 2 {
		t.Fatalf("APPEND_ONLY: want the insert and the re-insert, got %d rows", len(rows))
	}
	_, rows = incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "MIN_DELTA"))
	equalStrings(t, "MIN_DELTA", project(cols, rows, ColBinlogOp, "order_id", "status", "amount"), []string{
		"0|1|created|150.00",
	})
}

// TestSameKeyTwiceInOneTxn keeps every write of one transaction as its own
// record, sharing the TSO with increasing LSNs.
func TestSameKeyTwiceInOneTxn(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	insertRows(t, s, "orders", order(7, "a", "1"), order(7, "b", "2"), order(8, "c", "3"))
	exec(t, s, func(tx *Txn) error {
		if err := tx.Insert("db", "orders", order(7, "d", "4")); err != nil {
			return err
		}
		return tx.Delete("db", "orders", order(7, "", "0"))
	})
	clock.Set(at("2026-09-14 10:01:00"))
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "DETAIL"))
	equalStrings(t, "DETAIL", project(cols, rows, "order_id", "status", ColBinlogOp), []string{
		"7|a|0", "7|a|2", "7|b|3", "8|c|0", "7|b|2", "7|d|3", "7|d|1",
	})
	assertTSOOrder(t, cols, rows)
	if rows[0][3] != rows[3][3] || rows[0][4].(int64) >= rows[1][4].(int64) {
		t.Fatalf("first txn records should share a TSO with increasing LSNs: %v", rows)
	}
}
