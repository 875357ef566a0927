package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestTSO(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := New(Options{Clock: clock.Now})
	ms := at("2026-09-14 10:00:00").UnixMilli()
	cur := s.CurrentTSO()
	if cur.PhysicalMs != ms || cur.Value != ms<<18 || s.CurrentTSO() != cur {
		t.Fatalf("CurrentTSO = %+v (must follow the clock and not allocate)", cur)
	}
	a := s.oracle.allocate()
	b := s.oracle.allocate()
	if a.Value <= cur.Value || b.Value != a.Value+1 || b.PhysicalMs != ms || b.Logical != a.Logical+1 {
		t.Fatalf("allocations in one ms: %+v then %+v", a, b)
	}
	if s.CurrentTSO() != b || s.CommittedTSO() != b {
		t.Fatalf("current %+v, committed %+v, want %+v", s.CurrentTSO(), s.CommittedTSO(), b)
	}
	clock.Set(at("2026-09-14 09:00:00")) // the clock steps back
	c := s.oracle.allocate()
	if c.Value <= b.Value || s.CurrentTSO().Value < c.Value {
		t.Fatalf("TSO went backwards with the clock: %+v after %+v", c, b)
	}
	clock.Set(at("2026-09-14 11:00:00"))
	if got := s.CurrentTSO().PhysicalMs; got != at("2026-09-14 11:00:00").UnixMilli() {
		t.Fatalf("CurrentTSO behind the clock: %d", got)
	}
	if v := TSOFromValue(461373440032243713); v.PhysicalMs != 1760000000123 || v.Logical != 1 {
		t.Fatalf("TSOFromValue = %+v", v)
	}
}

func TestCommitTSOMonotonic(t *testing.T) {
	s := newStoreWith(t, nil, ordersDDL)
	var last int64
	for i := range 200 {
		tso := insertRows(t, s, "orders", order(int64(i%7), "s", "1"))
		if tso.Value <= last {
			t.Fatalf("commit %d TSO %d not above %d", i, tso.Value, last)
		}
		if now := time.Now().UnixMilli(); tso.PhysicalMs > now+1 {
			t.Fatalf("TSO physical %d ahead of the clock %d", tso.PhysicalMs, now)
		}
		last = tso.Value
	}
}

func TestTablets(t *testing.T) {
	s := newStoreWith(t, nil, ordersDDL, `CREATE TABLE d (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3`)
	o, _ := s.Table("db", "orders")
	d, _ := s.Table("db", "d")
	if len(o.TabletIDs) != 8 || o.TabletIDs[0] != 10001 || o.TabletIDs[7] != 10008 || d.TabletIDs[0] != 10009 {
		t.Fatalf("tablet ids %v %v", o.TabletIDs, d.TabletIDs)
	}
	var rows [][]any
	for i := range 100 {
		rows = append(rows, order(int64(i), "s", "1"))
	}
	insertRows(t, s, "orders", rows...)
	seen := map[string]int{}
	nonEmpty := 0
	for _, id := range o.TabletIDs {
		it, err := s.Scan("db", "orders", []int64{id})
		if err != nil {
			t.Fatal(err)
		}
		got := drain(t, it)
		if len(got) > 0 {
			nonEmpty++
		}
		for i, r := range got {
			seen[fmt.Sprint(r[0])]++
			if i > 0 && got[i-1][0].(int64) >= r[0].(int64) {
				t.Fatalf("tablet %d not in key order", id)
			}
		}
	}
	if len(seen) != 100 || nonEmpty < 2 {
		t.Fatalf("rows over tablets: %d keys, %d non-empty tablets", len(seen), nonEmpty)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("key %s in %d tablets", k, n)
		}
	}
	if _, err := s.Scan("db", "orders", []int64{o.TabletIDs[0], 99}); err == nil {
		t.Fatal("unknown tablet id should fail")
	}
	if err := s.DropTable("db", "d", false); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, `CREATE TABLE d (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1`)
	if d2, _ := s.Table("db", "d"); d2.TabletIDs[0] != 10012 {
		t.Fatalf("tablet ids reused: %v", d2.TabletIDs)
	}
	// Stable placement: the same key always lands in the same tablet.
	s2 := newStoreWith(t, nil, ordersDDL)
	insertRows(t, s2, "orders", rows...)
	o2, _ := s2.Table("db", "orders")
	for i := range o.TabletIDs {
		a, _ := s.Scan("db", "orders", []int64{o.TabletIDs[i]})
		b, _ := s2.Scan("db", "orders", []int64{o2.TabletIDs[i]})
		if fmt.Sprint(drain(t, a)) != fmt.Sprint(drain(t, b)) {
			t.Fatalf("placement differs between stores for bucket %d", i)
		}
	}
}

func TestTxnVisibility(t *testing.T) {
	s := newStoreWith(t, nil, ordersDDL)
	insertRows(t, s, "orders", order(1, "a", "1"), order(2, "b", "2"))
	tx := s.Begin()
	if err := tx.Insert("db", "orders", order(3, "c", "3")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert("db", "orders", order(1, "a2", "1")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Delete("db", "orders", order(2, "", "0")); err != nil {
		t.Fatal(err)
	}
	cols := []Column{{Type: Type{Kind: BigInt}}, {Type: Type{Kind: String}}, {Type: mustType(t, "DECIMAL(10,2)")}}
	it, _ := tx.Scan("db", "orders", nil)
	own := sorted(render(cols, drain(t, it)))
	equalStrings(t, "own writes", own, []string{"1|a2|1.00", "3|c|3.00"})
	it, _ = s.Scan("db", "orders", nil)
	equalStrings(t, "others", sorted(render(cols, drain(t, it))), []string{"1|a|1.00", "2|b|2.00"})
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	it, _ = s.Scan("db", "orders", nil)
	equalStrings(t, "after commit", sorted(render(cols, drain(t, it))), own)

	tx = s.Begin()
	_ = tx.Insert("db", "orders", order(9, "z", "9"))
	tx.Rollback()
	it, _ = s.Scan("db", "orders", nil)
	if n := len(drain(t, it)); n != 2 {
		t.Fatalf("rolled back row visible: %d rows", n)
	}
	if err := tx.Insert("db", "orders", order(9, "z", "9")); err == nil {
		t.Fatal("insert after rollback should fail")
	}
}

func TestInsertValidation(t *testing.T) {
	s := newStoreWith(t, nil, `CREATE TABLE n (k INT NOT NULL, v VARCHAR(2) NOT NULL) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1`)
	tx := s.Begin()
	defer tx.Rollback()
	wantErrText(t, tx.Insert("db", "n", []any{1, nil}), "null value for not null column, column=v")
	wantErrText(t, tx.Insert("db", "n", []any{1, "abc"}), "too long")
	wantErrText(t, tx.Insert("db", "n", []any{1}), "row has 1 values but the table has 2 columns")
	wantErrText(t, tx.Insert("db", "missing", []any{1, "a"}), "Unknown table")
}

// TestScanConsistency: a committer rewrites every row to the same value per
// transaction; a scan must never see a mix.
func TestScanConsistency(t *testing.T) {
	s := newStoreWith(t, nil, `CREATE TABLE c (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
		PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`,
		`CREATE TABLE dd (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4`)
	const keys = 50
	write := func(v int) error {
		tx := s.Begin()
		for k := range keys {
			if err := tx.Insert("db", "c", []any{k, v}); err != nil {
				return err
			}
			if err := tx.Insert("db", "dd", []any{k, v}); err != nil {
				return err
			}
		}
		_, err := tx.Commit()
		return err
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := 1; v <= 200 && ctx.Err() == nil; v++ {
			if err := write(v); err != nil {
				errc <- err
				return
			}
		}
	}()
	for i := 0; i < 300 && ctx.Err() == nil; i++ {
		it, err := s.Scan("db", "c", nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := drain(t, it)
		if len(rows) != keys {
			t.Fatalf("scan saw %d rows", len(rows))
		}
		for _, r := range rows {
			if r[1] != rows[0][1] {
				t.Fatalf("torn read: %v and %v", rows[0], r)
			}
		}
		it, _ = s.Scan("db", "dd", nil)
		if n := len(drain(t, it)); n%keys != 0 {
			t.Fatalf("DUP scan saw %d rows, not a whole number of commits", n)
		}
	}
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
}

func TestTxnOverlayDupAndKeyChange(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL, `CREATE TABLE d (k INT, v STRING) DISTRIBUTED BY HASH(k) BUCKETS 2`)
	insertRows(t, s, "d", []any{1, "a"}, []any{2, "b"})
	insertRows(t, s, "orders", order(1, "a", "1"))
	tx := s.Begin()
	_ = tx.Insert("db", "d", []any{3, "c"})
	_ = tx.Delete("db", "d", []any{1, "a"})
	if err := tx.Update("db", "orders", order(1, "a", "1"), order(2, "a", "1")); err != nil {
		t.Fatal(err)
	}
	info, _ := s.Table("db", "d")
	it, err := tx.Scan("db", "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "DUP own writes", sorted(render(info.Def.Columns, drain(t, it))), []string{"2|b", "3|c"})
	oinfo, _ := s.Table("db", "orders")
	it, _ = tx.Scan("db", "orders", oinfo.TabletIDs)
	equalStrings(t, "key change", render(oinfo.Def.Columns, drain(t, it)), []string{"2|a|1.00"})
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("2026-09-14 10:01:00"))
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "DETAIL"))
	equalStrings(t, "key change records", project(cols, rows, "order_id", ColBinlogOp), []string{"1|0", "1|1", "2|0"})
}
