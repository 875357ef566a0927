package storage

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

const rangeDDL = `CREATE TABLE ev (
    dt DATE NOT NULL,
    id BIGINT NOT NULL,
    v  VARCHAR(8)
)
DUPLICATE KEY(dt, id)
PARTITION BY RANGE(dt) (
    PARTITION p1 VALUES LESS THAN ("2026-01-01"),
    PARTITION p2 VALUES [("2026-01-01"), ("2026-02-01")),
    PARTITION pmax VALUES LESS THAN (MAXVALUE)
)
DISTRIBUTED BY RANDOM BUCKETS 3
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

const listDDL = `CREATE TABLE lt (
    region VARCHAR(8) NOT NULL,
    id INT NOT NULL
)
UNIQUE KEY(region, id)
PARTITION BY LIST(region) (
    PARTITION p_eu VALUES IN ("de", "fr"),
    PARTITION p_us VALUES IN ("us")
)
DISTRIBUTED BY HASH(region, id) BUCKETS 2
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

const autoDDL = `CREATE TABLE au (
    ts DATETIME NOT NULL,
    id INT NOT NULL
)
DUPLICATE KEY(ts)
AUTO PARTITION BY RANGE (date_trunc(ts, 'day')) ()
DISTRIBUTED BY HASH(id) BUCKETS 2`

func partitionNames(t *testing.T, s *Store, table string) []string {
	t.Helper()
	parts, _, err := s.Partitions("db", table)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range parts {
		out = append(out, p.Name)
	}
	return out
}

// TestPartitionTabletsPerPartitionAndBucket: partitions × buckets tablets,
// ids stable across writes and DDL on other partitions.
func TestPartitionTabletsPerPartitionAndBucket(t *testing.T) {
	s := newStoreWith(t, nil, rangeDDL)
	info, err := s.Table("db", "ev")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Partitions) != 3 || len(info.TabletIDs) != 9 {
		t.Fatalf("partitions %d tablets %d, want 3 and 9", len(info.Partitions), len(info.TabletIDs))
	}
	for _, p := range info.Partitions {
		if len(p.TabletIDs) != 3 {
			t.Fatalf("partition %s has %d tablets", p.Name, len(p.TabletIDs))
		}
	}
	insertRows(t, s, "ev", []any{"2025-06-01", int64(1), "a"}, []any{"2026-01-15", int64(2), "b"}, []any{"2030-01-01", int64(3), "c"})
	if err := s.DropPartition("db", "ev", "p2", false); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Table("db", "ev")
	want := append(append([]int64(nil), info.Partitions[0].TabletIDs...), info.Partitions[2].TabletIDs...)
	if !slices.Equal(after.TabletIDs, want) {
		t.Fatalf("tablets after drop %v, want %v", after.TabletIDs, want)
	}
}

// TestPartitionRoutingAndRejection: each row lands in its partition's
// tablets; a row past every RANGE or outside every LIST is rejected.
func TestPartitionRoutingAndRejection(t *testing.T) {
	s := newStoreWith(t, nil, listDDL, strings.Replace(rangeDDL, ",\n    PARTITION pmax VALUES LESS THAN (MAXVALUE)", "", 1))
	insertRows(t, s, "ev", []any{"2025-06-01", int64(1), "a"}, []any{"2026-01-31", int64(2), "b"})
	_, counts, _ := s.Partitions("db", "ev")
	if counts[0] != 1 || counts[1] != 1 {
		t.Fatalf("row counts %v, want [1 1]", counts)
	}
	for _, tc := range []struct {
		table string
		row   []any
	}{{"ev", []any{"2026-02-01", int64(3), "c"}}, {"lt", []any{"jp", int64(1)}}} {
		tx := s.Begin()
		err := tx.Insert("db", tc.table, tc.row)
		tx.Rollback()
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Message, "Insert has filtered data in strict mode. first_error_msg: no partition for this tuple. tuple=[{") ||
			e.Name != ErrNameInsertFiltered {
			t.Fatalf("%s %v: got %v", tc.table, tc.row, err)
		}
	}
	insertRows(t, s, "lt", []any{"fr", int64(1)}, []any{"us", int64(2)})
	_, counts, _ = s.Partitions("db", "lt")
	if counts[0] != 1 || counts[1] != 1 {
		t.Fatalf("list row counts %v, want [1 1]", counts)
	}
}

// TestPartitionNullGoesToLessThanMinimum follows the Doris docs: NULL lands
// in the first LESS THAN partition, and fits no fixed-range partition.
func TestPartitionNullGoesToLessThanMinimum(t *testing.T) {
	s := newStoreWith(t, nil, `CREATE TABLE n1 (k INT NULL) DUPLICATE KEY(k)
		PARTITION BY RANGE(k) (PARTITION p10 VALUES LESS THAN ("10"), PARTITION p100 VALUES LESS THAN ("100"))
		DISTRIBUTED BY HASH(k) BUCKETS 1`,
		`CREATE TABLE n2 (k INT NULL) DUPLICATE KEY(k)
		PARTITION BY RANGE(k) (PARTITION p200 VALUES [("100"), ("200")))
		DISTRIBUTED BY HASH(k) BUCKETS 1`)
	insertRows(t, s, "n1", []any{nil})
	if _, counts, _ := s.Partitions("db", "n1"); counts[0] != 1 {
		t.Fatalf("NULL not in p10: %v", counts)
	}
	tx := s.Begin()
	defer tx.Rollback()
	wantErrText(t, tx.Insert("db", "n2", []any{nil}), "Insert has filtered data in strict mode")
}

// TestAutoPartitionCreatesDailyPartitions: AUTO RANGE starts empty and
// creates p<yyyyMMddHHmmss> partitions as rows arrive.
func TestAutoPartitionCreatesDailyPartitions(t *testing.T) {
	s := newStoreWith(t, nil, autoDDL)
	if names := partitionNames(t, s, "au"); len(names) != 0 {
		t.Fatalf("new AUTO table has partitions %v", names)
	}
	insertRows(t, s, "au", []any{"2026-12-01 10:00:00", int64(1)}, []any{"2026-12-01 23:59:59", int64(2)}, []any{"2026-11-30 00:00:00", int64(3)})
	equalStrings(t, "partitions", partitionNames(t, s, "au"), []string{"p20261130000000", "p20261201000000"})
	info, _ := s.Table("db", "au")
	if len(info.TabletIDs) != 4 {
		t.Fatalf("tablets %v, want 2 partitions × 2 buckets", info.TabletIDs)
	}
	if !strings.Contains(info.ShowCreate, "AUTO PARTITION BY RANGE (date_trunc(`ts`, 'day'))\n(PARTITION p20261130000000 VALUES [('2026-11-30 00:00:00'), ('2026-12-01 00:00:00')),\nPARTITION p20261201000000 VALUES [('2026-12-01 00:00:00'), ('2026-12-02 00:00:00')))\nDISTRIBUTED BY HASH(`id`) BUCKETS 2") {
		t.Fatalf("SHOW CREATE TABLE:\n%s", info.ShowCreate)
	}
}

func TestPartitionDDLErrors(t *testing.T) {
	for _, tc := range []struct{ ddl, want string }{
		{strings.Replace(autoDDL, "ts DATETIME NOT NULL", "ts DATETIME NULL", 1), "AUTO RANGE PARTITION doesn't support NULL column"},
		{`CREATE TABLE u (id INT, dt DATE) UNIQUE KEY(id) PARTITION BY RANGE(dt) (PARTITION p VALUES LESS THAN ("2026-01-01")) DISTRIBUTED BY HASH(id) BUCKETS 1`,
			"Merge-on-Write table's partition column must be KEY column"},
		{`CREATE TABLE u (id INT) PARTITION BY RANGE(nope) () DISTRIBUTED BY HASH(id) BUCKETS 1`, "Partition column[nope] does not exist in column list."},
		{`CREATE TABLE u (id INT) PARTITION BY RANGE(id) (PARTITION a VALUES [("5"), ("1"))) DISTRIBUTED BY HASH(id) BUCKETS 1`, "The lower values must smaller than upper values"},
		{`CREATE TABLE u (id INT) PARTITION BY RANGE(id) (PARTITION a VALUES [("1"), ("5")), PARTITION b VALUES [("3"), ("9"))) DISTRIBUTED BY HASH(id) BUCKETS 1`, "is intersected with range"},
	} {
		ct, err := ParseCreateTable(tc.ddl)
		if err == nil {
			s := New(Options{})
			_ = s.CreateDatabase("db", false)
			err = s.CreateTable("db", ct.Def, false)
		}
		wantErrText(t, err, tc.want)
	}
}

// TestShowCreatePartitionClause: ranges print in the fixed form Doris uses,
// LESS THAN lower bounds filled from the type minimum and the previous
// partition; LIST values as 'v','w'.
func TestShowCreatePartitionClause(t *testing.T) {
	s := newStoreWith(t, nil, rangeDDL, listDDL)
	ev, _ := s.Table("db", "ev")
	want := "PARTITION BY RANGE(`dt`)\n(PARTITION p1 VALUES [('0000-01-01'), ('2026-01-01')),\n" +
		"PARTITION p2 VALUES [('2026-01-01'), ('2026-02-01')),\nPARTITION pmax VALUES [('2026-02-01'), (MAXVALUE)))\n" +
		"DISTRIBUTED BY RANDOM BUCKETS 3\n"
	if !strings.Contains(ev.ShowCreate, want) {
		t.Fatalf("range SHOW CREATE:\n%s", ev.ShowCreate)
	}
	lt, _ := s.Table("db", "lt")
	if !strings.Contains(lt.ShowCreate, "PARTITION BY LIST(`region`)\n(PARTITION p_eu VALUES IN ('de','fr'),\nPARTITION p_us VALUES IN ('us'))\n") {
		t.Fatalf("list SHOW CREATE:\n%s", lt.ShowCreate)
	}
	if ev.Partitions[1].Range != "[types: [DATEV2]; keys: [2026-01-01]; ..types: [DATEV2]; keys: [2026-02-01]; )" {
		t.Fatalf("range text %q", ev.Partitions[1].Range)
	}
}

// TestDropPartitionRemovesRowsAndRecords: DROP PARTITION writes no records
// and the partition's earlier records disappear from @incr; ADD PARTITION
// writes none either.
func TestDropPartitionRemovesRowsAndRecords(t *testing.T) {
	clock := newFakeClock(at("2026-03-01 10:00:00"))
	s := newStoreWith(t, clock, rangeDDL)
	insertRows(t, s, "ev", []any{"2025-06-01", int64(1), "a"}, []any{"2026-01-15", int64(2), "b"})
	clock.Set(at("2026-03-01 10:00:05"))
	if err := s.DropPartition("db", "ev", "p1", false); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPartition("db", "ev", PartitionItemDef{Name: "p0", Lower: []*string{strPtr("2020-01-01")}, Upper: []*string{strPtr("2026-01-01")}}); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("2026-03-01 10:00:10"))
	cols, rows := incr(t, s, "ev", window("2026-03-01 09:00:00", "2026-03-01 10:00:10", "APPEND_ONLY"))
	equalStrings(t, "records", project(cols, rows, "id"), []string{"2"})
	it, err := s.Scan("db", "ev", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(t, it); len(got) != 1 {
		t.Fatalf("rows after drop: %v", got)
	}
	wantErrText(t, s.DropPartition("db", "ev", "nope", false), "Error in list of partitions to nope")
	if err := s.DropPartition("db", "ev", "nope", true); err != nil {
		t.Fatal(err)
	}
}

func strPtr(s string) *string { return &s }

// TestLoadFiltersRowsWithoutPartition: stream load counts rows that fit no
// partition as filtered under max_filter_ratio.
func TestLoadFiltersRowsWithoutPartition(t *testing.T) {
	s := newStoreWith(t, nil, strings.Replace(rangeDDL, ",\n    PARTITION pmax VALUES LESS THAN (MAXVALUE)", "", 1))
	rows := [][]*string{{strPtr("2025-01-01"), strPtr("1"), nil}, {strPtr("2027-01-01"), strPtr("2"), nil}}
	_, err := s.Load(context.Background(), "db", "ev", LoadRequest{Label: "l1", Rows: rows})
	wantErrText(t, err, "[DATA_QUALITY_ERROR]too many filtered rows")
	res, err := s.Load(context.Background(), "db", "ev", LoadRequest{Label: "l2", Rows: rows, MaxFilterRatio: 0.5})
	if err != nil || res.Loaded != 1 || res.Filtered != 1 {
		t.Fatalf("load with ratio 0.5: %+v %v", res, err)
	}
}

// TestTruncateReplacesPartitions: TRUNCATE gives every partition a new id
// and new tablets, writes no records and drops the earlier ones.
func TestTruncateReplacesPartitions(t *testing.T) {
	clock := newFakeClock(at("2026-03-01 10:00:00"))
	s := newStoreWith(t, clock, rangeDDL)
	insertRows(t, s, "ev", []any{"2025-06-01", int64(1), "a"})
	before, _ := s.Table("db", "ev")
	clock.Set(at("2026-03-01 10:00:05"))
	if err := s.TruncateTable("db", "ev"); err != nil {
		t.Fatal(err)
	}
	insertRows(t, s, "ev", []any{"2026-01-02", int64(2), "b"})
	after, _ := s.Table("db", "ev")
	for i, p := range after.Partitions {
		old := before.Partitions[i]
		if p.Name != old.Name || p.ID == old.ID || slices.Contains(before.TabletIDs, p.TabletIDs[0]) {
			t.Fatalf("partition %s after TRUNCATE: %+v (was %+v)", p.Name, p, old)
		}
	}
	clock.Set(at("2026-03-01 10:00:10"))
	cols, rows := incr(t, s, "ev", window("2026-03-01 09:00:00", "2026-03-01 10:00:10", "APPEND_ONLY"))
	equalStrings(t, "records", project(cols, rows, "id"), []string{"2"})
}

func TestPartitionAlterErrors(t *testing.T) {
	s := newStoreWith(t, nil, rangeDDL, `CREATE TABLE flat (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2`)
	wantErrText(t, s.DropPartition("db", "flat", "flat", false), "Alter table [flat] failed. Not a partitioned table")
	wantErrText(t, s.AddPartition("db", "flat", PartitionItemDef{Name: "p", LessThan: []*string{strPtr("1")}}),
		"Only support adding partition to range and list partitioned table")
	wantErrText(t, s.AddPartition("db", "ev", PartitionItemDef{Name: "P1", LessThan: []*string{strPtr("2020-01-01")}}), "Duplicate partition name P1")
	wantErrText(t, s.AddPartition("db", "ev", PartitionItemDef{Name: "px", Lower: []*string{strPtr("2026-01-15")}, Upper: []*string{strPtr("2026-03-01")}}),
		"is intersected with range")
	if names := partitionNames(t, s, "flat"); len(names) != 1 || names[0] != "flat" {
		t.Fatalf("unpartitioned table partitions %v, want one named after the table", names)
	}
}
