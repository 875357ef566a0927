package storage

import (
	"errors"
	"math"
	"testing"
)

const ttDupDDL = `CREATE TABLE tt_dup (k INT, v INT)
DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

const ttMowDDL = `CREATE TABLE tt_mow (k INT, v INT)
UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true",
  "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`

func kv(k, v int32) []any { return []any{k, v} }

func asOf(t *testing.T, s *Store, table string, tablets []int64, tso int64) []string {
	t.Helper()
	it, err := s.ScanAsOf("db", table, tablets, tso)
	if err != nil {
		t.Fatalf("as of %d: %v", tso, err)
	}
	return sorted(render(kvCols, drain(t, it)))
}

var kvCols = []Column{{Name: "k", Type: Type{Kind: Int}}, {Name: "v", Type: Type{Kind: Int}}}

func asOfErr(t *testing.T, s *Store, table string, tso int64) *Error {
	t.Helper()
	_, err := s.ScanAsOf("db", table, nil, tso)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("as of %d on %s: want a Doris error, got %v", tso, table, err)
	}
	return e
}

// The suite test_time_travel_dup: each batch's TSO reads exactly the
// batches up to it; MaxInt64 reads everything, 0 nothing.
func TestAsOfDup(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ttDupDDL)
	tso1 := insertRows(t, s, "tt_dup", kv(1, 10), kv(2, 20)).Value
	tso2 := insertRows(t, s, "tt_dup", kv(3, 30)).Value
	insertRows(t, s, "tt_dup", kv(4, 40), kv(1, 11))
	equalStrings(t, "tso1", asOf(t, s, "tt_dup", nil, tso1), []string{"1|10", "2|20"})
	equalStrings(t, "tso2", asOf(t, s, "tt_dup", nil, tso2), []string{"1|10", "2|20", "3|30"})
	equalStrings(t, "tso2-1", asOf(t, s, "tt_dup", nil, tso2-1), []string{"1|10", "2|20"})
	equalStrings(t, "max", asOf(t, s, "tt_dup", nil, math.MaxInt64), []string{"1|10", "1|11", "2|20", "3|30", "4|40"})
	equalStrings(t, "zero", asOf(t, s, "tt_dup", nil, 0), nil)
	// A DUP read never needs the binlog: the TTL does not limit it.
	if err := s.SetProperties("db", "tt_dup", map[string]string{"binlog.ttl_seconds": "60"}); err != nil {
		t.Fatal(err)
	}
	clock.Set(at("2026-09-14 11:00:00"))
	equalStrings(t, "tso1 past the TTL", asOf(t, s, "tt_dup", nil, tso1), []string{"1|10", "2|20"})
}

// The suite test_time_travel_mow_complex: every key keeps its value at t1.
func TestAsOfMoW(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ttMowDDL)
	t1 := insertRows(t, s, "tt_mow", kv(1, 10), kv(2, 20), kv(3, 30), kv(5, 50)).Value
	insertRows(t, s, "tt_mow", kv(2, 200))
	insertRows(t, s, "tt_mow", kv(2, 300))
	deleteRow(t, s, "tt_mow", kv(3, 0))
	insertRows(t, s, "tt_mow", kv(4, 40))
	deleteRow(t, s, "tt_mow", kv(5, 0))
	insertRows(t, s, "tt_mow", kv(5, 55))
	equalStrings(t, "t1", asOf(t, s, "tt_mow", nil, t1), []string{"1|10", "2|20", "3|30", "5|50"})
	equalStrings(t, "latest", asOf(t, s, "tt_mow", nil, math.MaxInt64), []string{"1|10", "2|300", "4|40", "5|55"})
}

// Each split reads only its tablets, restored before-images included: as
// of x, split i holds what tablet i of an untouched twin table holds (a
// fresh store numbers its tablets from the same id, and buckets hash keys).
func TestAsOfTablets(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	for name, ddl := range map[string]string{"tt_dup": ttDupDDL, "tt_mow": ttMowDDL} {
		s := newStoreWith(t, clock, ddl)
		twin := newStoreWith(t, clock, ddl)
		var rows [][]any
		for k := int32(1); k <= 20; k++ {
			rows = append(rows, kv(k, k*10))
		}
		x := insertRows(t, s, name, rows...).Value
		insertRows(t, twin, name, rows...)
		if name == "tt_mow" {
			for k := int32(1); k <= 20; k += 2 {
				insertRows(t, s, name, kv(k, -k))
			}
			for k := int32(2); k <= 20; k += 4 {
				deleteRow(t, s, name, kv(k, 0))
			}
		} else {
			insertRows(t, s, name, kv(99, 99), kv(5, 55))
		}
		info, err := s.Table("db", name)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, id := range info.TabletIDs {
			it, err := twin.Scan("db", name, []int64{id})
			if err != nil {
				t.Fatal(err)
			}
			want := sorted(render(kvCols, drain(t, it)))
			equalStrings(t, name+" split", asOf(t, s, name, []int64{id}, x), want)
			total += len(want)
		}
		if total != 20 {
			t.Fatalf("%s: the splits hold %d rows, want 20", name, total)
		}
	}
}

func TestAsOfErrors(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock,
		`CREATE TABLE nobinlog (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1`,
		`CREATE TABLE nohist (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW")`,
		`CREATE TABLE mor (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
PROPERTIES ("enable_unique_key_merge_on_write" = "false")`)
	for table, want := range map[string]string{
		"nobinlog": "FOR VERSION/TIME AS OF requires row binlog",
		"mor":      "FOR VERSION/TIME AS OF requires row binlog",
		"nohist":   "FOR VERSION/TIME AS OF on merge-on-write table requires binlog.need_historical_value=true",
	} {
		if e := asOfErr(t, s, table, 100); e.Message != want || e.Code != CodeGeneric {
			t.Fatalf("%s: %+v, want %q", table, e, want)
		}
	}
	if _, err := s.ScanWithCommitTSO("db", "nobinlog", nil); err == nil {
		t.Fatal("nobinlog has no commit TSO column")
	}
}

// A merge-on-write target older than the binlog TTL fails loudly, at the
// same cut-off as a MIN_DELTA start; the DUP case is in TestAsOfDup.
func TestAsOfMoWExpired(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ttMowDDL)
	if err := s.SetProperties("db", "tt_mow", map[string]string{"binlog.ttl_seconds": "60"}); err != nil {
		t.Fatal(err)
	}
	x := insertRows(t, s, "tt_mow", kv(1, 10)).Value
	insertRows(t, s, "tt_mow", kv(1, 11))
	clock.Set(at("2026-09-14 10:00:59"))
	equalStrings(t, "inside the TTL", asOf(t, s, "tt_mow", nil, x), []string{"1|10"})
	clock.Set(at("2026-09-14 10:01:00"))
	if e := asOfErr(t, s, "tt_mow", x); e.Message != "Row binlog offset has expired according to binlog.ttl_seconds" {
		t.Fatalf("expired: %q", e.Message)
	}
}

// A time-travel read does not wait for publishes: a commit at or before
// the target whose publish is held is missing until it is released.
func TestAsOfMissesHeldPublish(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ttDupDDL)
	insertRows(t, s, "tt_dup", kv(1, 10))
	h, err := s.HoldPublish("db", "tt_dup")
	if err != nil {
		t.Fatal(err)
	}
	held := insertRows(t, s, "tt_dup", kv(2, 20)).Value
	equalStrings(t, "held", asOf(t, s, "tt_dup", nil, held), []string{"1|10"})
	if !h.Scanned() {
		t.Fatal("the hold did not see the time-travel read")
	}
	h.Release()
	equalStrings(t, "released", asOf(t, s, "tt_dup", nil, held), []string{"1|10", "2|20"})
}

// The commit TSO column holds the TSO of each row's latest write, and its
// value at a target is the write that was latest then.
func TestCommitTSOColumn(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newStoreWith(t, clock, ttMowDDL)
	t1 := insertRows(t, s, "tt_mow", kv(1, 10), kv(2, 20)).Value
	t2 := insertRows(t, s, "tt_mow", kv(2, 21)).Value
	deleteRow(t, s, "tt_mow", kv(1, 0))
	it, err := s.ScanWithCommitTSO("db", "tt_mow", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := drain(t, it)
	if len(rows) != 1 || rows[0][0] != int32(2) || rows[0][2] != t2 {
		t.Fatalf("current: %v, want key 2 at %d", rows, t2)
	}
	it, err = s.ScanAsOfWithCommitTSO("db", "tt_mow", nil, t1)
	if err != nil {
		t.Fatal(err)
	}
	rows = drain(t, it)
	byKey := map[int32]any{}
	for _, r := range rows {
		byKey[r[0].(int32)] = r[2]
	}
	if len(rows) != 2 || byKey[1] != t1 || byKey[2] != t1 {
		t.Fatalf("at t1: %v, want keys 1 and 2 at %d", rows, t1)
	}
}
