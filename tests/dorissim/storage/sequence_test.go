package storage

import (
	"strings"
	"testing"
)

const seqDDL = `CREATE TABLE seq (
    id  BIGINT,
    v   VARCHAR(16),
    ver BIGINT
)
UNIQUE KEY(id)
DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES (
    "binlog.enable" = "true",
    "binlog.format" = "ROW",
    "binlog.need_historical_value" = "true",
    "function_column.sequence_col" = "ver"
)`

// TestSequenceColumnOrdersWrites checks the mapped sequence column: a write
// with a lower value than the stored row's is dropped with no binlog record,
// an equal one wins, deletes keep their sequence value against older
// writes, and INSERT statements follow the same rule as loads.
func TestSequenceColumnOrdersWrites(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, seqDDL)
	cols := []string{"id", "v", "ver"}
	if _, err := load(t, s, "seq", LoadRequest{Columns: cols, Rows: [][]*string{strs("1", "a", "5"), strs("2", "b", "5")}}); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("2026-09-14 10:01:00"))
	if _, err := load(t, s, "seq", LoadRequest{Columns: cols, Rows: [][]*string{strs("1", "older", "4"), strs("2", "same", "5")}}); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("2026-09-14 10:02:00"))
	insertRows(t, s, "seq", []any{int64(1), "older-sql", int64(3)})
	clock.Set(at("2026-09-14 10:03:00"))
	del := []string{"id", "v", "ver", DeleteSignColumn}
	if _, err := load(t, s, "seq", LoadRequest{Columns: del, Rows: [][]*string{strs("2", "x", "7", "1")}}); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("2026-09-14 10:04:00"))
	if _, err := load(t, s, "seq", LoadRequest{Columns: cols, Rows: [][]*string{strs("2", "replayed", "6"), strs("3", "c", "1")}}); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "rows", scanRendered(t, s, "seq"), []string{"1|a|5", "3|c|1"})
	clock.Set(at("2026-09-14 10:10:00"))
	c, rows := incr(t, s, "seq", window("2026-09-14 10:00:00", "2026-09-14 10:05:00", "DETAIL"))
	got := project(c, rows, "id", "v", "__DORIS_BINLOG_OP__")
	want := []string{"1|a|0", "2|b|0", "2|b|2", "2|same|3", "2|same|1", "3|c|0"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("binlog:\n got %v\nwant %v", got, want)
	}
}

func TestSequenceColumnRules(t *testing.T) {
	s := newStoreWith(t, nil, seqDDL, ordersDDL)
	_, err := load(t, s, "seq", LoadRequest{Columns: []string{"id", "v"}, Rows: [][]*string{strs("1", "a")}})
	wantErrText(t, err, "Table seq has sequence column, need to specify the sequence column")
	if _, err := load(t, s, "seq", LoadRequest{Columns: []string{"id", "v", "ver"}, Rows: [][]*string{strs("1", "a", "2")}}); err != nil {
		t.Fatal(err)
	}
	// A partial update without the sequence column keeps the stored one.
	if _, err := load(t, s, "seq", LoadRequest{Columns: []string{"id", "v"}, PartialColumns: true, Rows: [][]*string{strs("1", "b")}}); err != nil {
		t.Fatalf("partial update: %v", err)
	}
	equalStrings(t, "after partial", scanRendered(t, s, "seq"), []string{"1|b|2"})
	_, err = load(t, s, "orders", LoadRequest{SequenceSource: "x", Rows: [][]*string{strs("1", "a", "1")}})
	wantErrText(t, err, "There is no sequence column in the table orders")
	for ddl, msg := range map[string]string{
		`CREATE TABLE d1 (id BIGINT, ver BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "ver")`:                                       "sequence column only support UNIQUE_KEYS",
		`CREATE TABLE d2 (id BIGINT, ver BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "nope")`:                                         "The specified sequence column[nope] not exists",
		`CREATE TABLE d3 (id BIGINT, ver VARCHAR(8)) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "ver")`:                                      "Sequence type only support integer types and date types",
		`CREATE TABLE d4 (id BIGINT, ver BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "ver", "function_column.sequence_type" = "int")`: "The sequence_col and sequence_type cannot be set at the same time",
		`CREATE TABLE d5 (id BIGINT, ver BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("function_column.sequence_type" = "int")`:                                         "does not model the hidden __DORIS_SEQUENCE_COL__",
	} {
		ct, err := ParseCreateTable(ddl)
		if err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
		wantErrText(t, s.CreateTable("db", ct.Def, false), msg)
	}
}
