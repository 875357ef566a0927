package storage

import (
	"testing"
	"time"
)

const defaultsDDL = `CREATE TABLE dflt (
    id  BIGINT,
    v   VARCHAR(16),
    n   INT NOT NULL DEFAULT "5",
    ts  DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    day DATE DEFAULT CURRENT_DATE
)
UNIQUE KEY(id)
DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES (
    "binlog.enable" = "true",
    "binlog.format" = "ROW",
    "binlog.need_historical_value" = "true"
);`

// loadWall is the wall clock a load at clock time t writes for
// CURRENT_TIMESTAMP: the simulator's global time_zone is SYSTEM.
func loadWall(t time.Time, digits int) string {
	l := t.In(time.Local)
	w := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
	return FormatValue(Type{Kind: DateTime, Scale: digits}, truncateDateTime(w, digits))
}

func TestLoadFillsDefaultsOfOmittedColumns(t *testing.T) {
	t1 := at("2026-09-14 10:00:00").Add(250 * time.Millisecond)
	clock := newFakeClock(t1)
	s := newStoreWith(t, clock, defaultsDDL)
	// A full-row load naming only some columns: the others take their defaults.
	if _, err := load(t, s, "dflt", LoadRequest{Label: "l1", Columns: []string{"id", "v"}, Rows: [][]*string{strs("1", "a")}}); err != nil {
		t.Fatal(err)
	}
	day1 := loadWall(t1, 0)[:10]
	equalStrings(t, "after full-row load", scanRendered(t, s, "dflt"), []string{"1|a|5|" + loadWall(t1, 3) + "|" + day1})

	// A partial-column load updates key 1 (its other columns are kept) and
	// creates key 2, whose unmentioned columns take the defaults at load time.
	t2 := t1.Add(time.Minute)
	clock.Set(t2)
	if _, err := load(t, s, "dflt", LoadRequest{Label: "l2", Columns: []string{"id", "v"}, PartialColumns: true,
		Rows: [][]*string{strs("1", "b"), strs("2", "c")}}); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "after partial load", scanRendered(t, s, "dflt"), []string{
		"1|b|5|" + loadWall(t1, 3) + "|" + day1,
		"2|c|5|" + loadWall(t2, 3) + "|" + loadWall(t2, 0)[:10],
	})
}

func TestAddColumnDefaultReachesRowsAndRecords(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	insertRows(t, s, "orders", order(1, "created", "100"))
	clock.Set(at("2026-09-14 10:00:30"))
	wall := at("2026-09-14 18:00:30") // the ALTER's session clock, at +08:00
	for _, col := range []Column{
		{Name: "w", Type: Type{Kind: Int}, Nullable: true, Default: ptr("7")},
		{Name: "added", Type: Type{Kind: DateTime}, Default: ptr("CURRENT_TIMESTAMP")},
	} {
		if err := s.AddColumnAt("db", "orders", col, wall); err != nil {
			t.Fatal(err)
		}
	}
	equalStrings(t, "old row", scanRendered(t, s, "orders"), []string{"1|created|100.00|7|2026-09-14 18:00:30"})
	clock.Set(at("2026-09-14 10:01:00"))
	cols, rows := incr(t, s, "orders", window("2026-09-14 09:59:00", "2026-09-14 10:01:00", "DETAIL"))
	equalStrings(t, "old record", project(cols, rows, "order_id", "w", "added", ColBinlogOp), []string{"1|7|2026-09-14 18:00:30|0"})

	err := s.AddColumn("db", "orders", Column{Name: "bad", Type: Type{Kind: Varchar, Length: 10}, Nullable: true, Default: ptr("CURRENT_TIMESTAMP")})
	wantErrText(t, err, "Types other than DATETIME and DATETIMEV2 cannot use current_timestamp as the default value")
	err = s.AddColumn("db", "orders", Column{Name: "bad", Type: Type{Kind: DateTime}, Nullable: true, Default: ptr("CURRENT_TIMESTAMP(7)")})
	wantErrText(t, err, "column's default value current_timestamp precision must be between 0 and 6")
}

func ptr(s string) *string { return &s }
