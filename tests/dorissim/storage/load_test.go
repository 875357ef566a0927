package storage

import (
	"context"
	"errors"
	"testing"
)

func strs(vals ...string) []*string {
	out := make([]*string, len(vals))
	for i, v := range vals {
		if v == "\\N" {
			continue
		}
		out[i] = &vals[i]
	}
	return out
}

func load(t *testing.T, s *Store, table string, req LoadRequest) (LoadResult, error) {
	t.Helper()
	return s.Load(context.Background(), "db", table, req)
}

func scanRendered(t *testing.T, s *Store, table string) []string {
	t.Helper()
	info, err := s.Table("db", table)
	if err != nil {
		t.Fatal(err)
	}
	it, err := s.Scan("db", table, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sorted(render(info.Def.Columns, drain(t, it)))
}

func TestLoadWithDeleteSignAndPartialColumns(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	res, err := load(t, s, "orders", LoadRequest{Label: "l1", Rows: [][]*string{
		strs("1", "created", "100"), strs("2", "created", "200"), strs("3", "\\N", "300.5"),
	}})
	if err != nil || res.Loaded != 3 || res.TxnID == 0 || res.TSO.PhysicalMs != clock.Now().UnixMilli() {
		t.Fatalf("load 1: %+v %v", res, err)
	}
	equalStrings(t, "after load 1", scanRendered(t, s, "orders"), []string{"1|created|100.00", "2|created|200.00", "3|NULL|300.50"})

	clock.Set(at("2026-09-14 10:01:00"))
	_, err = load(t, s, "orders", LoadRequest{Label: "l2", Columns: []string{"order_id", "status", DeleteSignColumn},
		PartialColumns: true, Rows: [][]*string{strs("1", "paid", "0"), strs("2", "x", "1"), strs("9", "new", "0")}})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "after partial load", scanRendered(t, s, "orders"), []string{"1|paid|100.00", "3|NULL|300.50", "9|new|NULL"})

	clock.Set(at("2026-09-14 10:02:00"))
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:01:00", "2026-09-14 10:02:00", "DETAIL"))
	equalStrings(t, "partial load records", project(cols, rows, "order_id", "status", "amount", ColBinlogOp), []string{
		"1|created|100.00|2", "1|paid|100.00|3", "2|created|200.00|1", "9|new|NULL|0",
	})

	_, err = load(t, s, "orders", LoadRequest{Label: "l3", MergeType: "delete", Columns: []string{"order_id"},
		Rows: [][]*string{strs("1"), strs("3")}})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "after DELETE load", scanRendered(t, s, "orders"), []string{"9|new|NULL"})
}

func TestPartialLoadNewKeyNeedsValues(t *testing.T) {
	s := newStoreWith(t, nil, `CREATE TABLE p (k INT NOT NULL, a INT NOT NULL, b INT NOT NULL DEFAULT "7")
		UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1`)
	if _, err := load(t, s, "p", LoadRequest{Rows: [][]*string{strs("1", "2", "3")}}); err != nil {
		t.Fatal(err)
	}
	// Existing key: the missing NOT NULL column keeps its value.
	if _, err := load(t, s, "p", LoadRequest{Columns: []string{"k", "b"}, PartialColumns: true, Rows: [][]*string{strs("1", "9")}}); err != nil {
		t.Fatal(err)
	}
	// New key: a has neither a value nor a default.
	_, err := load(t, s, "p", LoadRequest{Columns: []string{"k", "b"}, PartialColumns: true, Rows: [][]*string{strs("2", "9")}})
	wantErrText(t, err, "the unmentioned column `a` should have default value or be nullable")
	// New key with a defaulted column missing is fine.
	if _, err := load(t, s, "p", LoadRequest{Columns: []string{"k", "a"}, PartialColumns: true, Rows: [][]*string{strs("3", "4")}}); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "rows", scanRendered(t, s, "p"), []string{"1|2|9", "3|4|7"})
}

func TestLoadErrors(t *testing.T) {
	s := newStoreWith(t, nil, ordersDDL, dupDDL)
	if _, err := load(t, s, "orders", LoadRequest{Label: "same", Rows: [][]*string{strs("1", "a", "1")}}); err != nil {
		t.Fatal(err)
	}
	_, err := load(t, s, "orders", LoadRequest{Label: "same", Rows: [][]*string{strs("2", "a", "1")}})
	var e *Error
	if !errors.As(err, &e) || e.Name != "LABEL_ALREADY_EXISTS" {
		t.Fatalf("label reuse: %v", err)
	}
	// A failed load applies nothing and frees its label.
	_, err = load(t, s, "orders", LoadRequest{Label: "bad", Rows: [][]*string{strs("5", "a", "1"), strs("x", "a", "1")}})
	wantErrText(t, err, "[DATA_QUALITY_ERROR]too many filtered rows")
	equalStrings(t, "after failed load", scanRendered(t, s, "orders"), []string{"1|a|1.00"})
	if _, err := load(t, s, "orders", LoadRequest{Label: "bad", Rows: [][]*string{strs("5", "a", "1")}}); err != nil {
		t.Fatalf("reusing a failed label: %v", err)
	}
	_, err = load(t, s, "orders", LoadRequest{Columns: []string{"status"}, PartialColumns: true, Rows: [][]*string{strs("a")}})
	wantErrText(t, err, "Partial update should include all key columns, missing: order_id")
	_, err = load(t, s, "orders", LoadRequest{Columns: []string{"nope"}, Rows: [][]*string{strs("a")}})
	wantErrText(t, err, "Unknown column 'nope'")
	_, err = load(t, s, "orders", LoadRequest{Rows: [][]*string{strs("1", "a")}})
	wantErrText(t, err, "actual column number 2 is not equal to schema column number 3")
	_, err = load(t, s, "events", LoadRequest{MergeType: "DELETE", Rows: [][]*string{strs("1", "a")}})
	wantErrText(t, err, "load by MERGE or DELETE is only supported in unique tables.")
	_, err = load(t, s, "events", LoadRequest{MergeType: "UPSERT", Rows: [][]*string{strs("1", "a")}})
	wantErrText(t, err, "Invalid merge type")
	if _, err := s.Load(context.Background(), "nodb", "orders", LoadRequest{}); err == nil {
		t.Fatal("unknown database")
	}
	res, err := load(t, s, "events", LoadRequest{Rows: [][]*string{strs("1", "a"), strs("1", "a")}})
	if err != nil || res.Loaded != 2 {
		t.Fatalf("DUP load: %+v %v", res, err)
	}
}

func TestAlterColumns(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	insertRows(t, s, "orders", order(1, "created", "1"))
	def := "none"
	if err := s.AddColumn("db", "orders", Column{Name: "note", Type: mustType(t, "VARCHAR(8)"), Nullable: true, Default: &def}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddColumn("db", "orders", Column{Name: "extra", Type: mustType(t, "INT"), Nullable: true}); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "existing rows", scanRendered(t, s, "orders"), []string{"1|created|1.00|none|NULL"})
	insertRows(t, s, "orders", []any{int64(1), "paid", "1", "hi", int32(5)})
	clock.Set(at("2026-09-14 10:01:00"))
	cols, rows := incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "DETAIL"))
	equalStrings(t, "binlog after ADD COLUMN", render(cols[:5], trimHidden(rows)), []string{
		"1|created|1.00|none|NULL", "1|created|1.00|none|NULL", "1|paid|1.00|hi|5",
	})
	if err := s.DropColumn("db", "orders", "status"); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "after DROP COLUMN", scanRendered(t, s, "orders"), []string{"1|1.00|hi|5"})
	cols, rows = incr(t, s, "orders", window("2026-09-14 10:00:00", "2026-09-14 10:01:00", "MIN_DELTA"))
	equalStrings(t, "MIN_DELTA after DROP", project(cols, rows, "order_id", "note", ColBinlogOp), []string{"1|hi|0"})
	info, _ := s.Table("db", "orders")
	if len(info.Def.Columns) != 4 || info.Def.Columns[1].Name != "amount" {
		t.Fatalf("columns %+v", info.Def.Columns)
	}
	wantErrText(t, s.DropColumn("db", "orders", "order_id"), "Can not drop key column")
	wantErrText(t, s.DropColumn("db", "orders", "missing"), "Column does not exists: missing")
	// note exists with another type: Doris's checkAndAddColumn text.
	wantErrText(t, s.AddColumn("db", "orders", Column{Name: "note", Type: mustType(t, "INT"), Nullable: true}),
		"Repeatedly add same column with different definition: note")
	wantErrText(t, s.AddColumn("db", "orders", Column{Name: "nn", Type: mustType(t, "INT")}), "without default value")
	if err := s.TruncateTable("db", "orders"); err != nil {
		t.Fatal(err)
	}
	if got := scanRendered(t, s, "orders"); len(got) != 0 {
		t.Fatalf("truncate left %v", got)
	}
	// A transaction staged before an ALTER cannot commit against the new schema.
	tx := s.Begin()
	if err := tx.Insert("db", "orders", []any{int64(2), "1", "x", nil}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddColumn("db", "orders", Column{Name: "z", Type: mustType(t, "INT"), Nullable: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err == nil {
		t.Fatal("commit across a schema change should fail")
	}
}

func trimHidden(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r[:len(r)-3]
	}
	return out
}
