package dorissim

import (
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Time travel on OLAP tables (docs/time-travel.md, docs/contracts.md
// "Time travel"): the input's exact-snapshot split query
// ``SELECT cols FROM `db`.`t` FOR VERSION AS OF X  TABLET(ids)  WHERE f``
// over both protocols, the commit-TSO column, Doris's errors and the switch
// to an FE from before time travel.

const (
	ttDupDDL = "CREATE TABLE tt.dup (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3\n" +
		"PROPERTIES (\"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\")"
	ttMowDDL = "CREATE TABLE tt.mow (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3\n" +
		"PROPERTIES (\"enable_unique_key_merge_on_write\" = \"true\", \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\",\n" +
		"  \"binlog.need_historical_value\" = \"true\", \"binlog.ttl_seconds\" = \"600\")"
	ttMowNoHistDDL = "CREATE TABLE tt.mow_nohist (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1\n" +
		"PROPERTIES (\"enable_unique_key_merge_on_write\" = \"true\", \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\")"
	ttPlainDDL = "CREATE TABLE tt.plain (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
)

// ttFixture is a simulator with the four tables, a first batch of
// changes, the TSO x1 after it and a second batch after x1.
type ttFixture struct {
	s     *Server
	clock *fakeClock
	conn  *sql.Conn
	fs    *flightSession
	x1    int64
}

func newTTFixture(t *testing.T, cfg Config) *ttFixture {
	t.Helper()
	clock := newFakeClock(time.Date(2026, 9, 14, 10, 0, 0, 0, time.UTC))
	cfg.Clock = clock.Now
	s := startSim(t, cfg)
	mustExecAll(t, s, "CREATE DATABASE tt", ttDupDDL, ttMowDDL, ttMowNoHistDDL, ttPlainDDL,
		"INSERT INTO tt.dup VALUES (1, 10), (2, 20), (3, 30)",
		"INSERT INTO tt.mow VALUES (1, 10), (2, 20), (3, 30)",
		"INSERT INTO tt.mow_nohist VALUES (1, 10)",
		"INSERT INTO tt.plain VALUES (1, 10)")
	f := &ttFixture{s: s, clock: clock, conn: mysqlConn(t, s), fs: newFlightSession(t, s)}
	f.x1 = s.Store().CommittedTSO().Value
	clock.Set(time.Date(2026, 9, 14, 10, 0, 1, 0, time.UTC))
	mustExecAll(t, s,
		"INSERT INTO tt.dup VALUES (4, 40), (1, 11)",
		"INSERT INTO tt.mow VALUES (2, 200), (4, 40)",
		"DELETE FROM tt.mow WHERE k = 3",
		"INSERT INTO tt.mow VALUES (3, 300)")
	return f
}

func (f *ttFixture) tablets(t *testing.T, table string) []int64 {
	t.Helper()
	info, err := f.s.Store().Table("tt", table)
	if err != nil {
		t.Fatal(err)
	}
	return info.TabletIDs
}

// bothRows runs q over MySQL and Flight, fails unless both give the same
// rows, and returns them sorted.
func (f *ttFixture) bothRows(t *testing.T, q string) [][]string {
	t.Helper()
	my, err := mysqlText(testCtx(t), f.conn, q)
	if err != nil {
		t.Fatalf("mysql %s: %v", q, err)
	}
	fl, err := f.fs.text(q)
	if err != nil {
		t.Fatalf("flight %s: %v", q, err)
	}
	sortRows(my)
	sortRows(fl)
	if !equalRows(my, fl) {
		t.Fatalf("%s:\nmysql  %v\nflight %v", q, my, fl)
	}
	return my
}

func sortRows(rows [][]string) {
	sort.Slice(rows, func(a, b int) bool { return strings.Join(rows[a], "|") < strings.Join(rows[b], "|") })
}

func rowsText(rows [][]string) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = strings.Join(r, "|")
	}
	return strings.Join(parts, ",")
}

// splitSQL is the input's split query with the snapshot clause, in the
// shape of doris.SnapshotSQL: two spaces before TABLET, one after.
func splitSQL(table, cols string, x int64, tablets []int64, where string) string {
	ids := make([]string, len(tablets))
	for i, id := range tablets {
		ids[i] = strconv.FormatInt(id, 10)
	}
	q := fmt.Sprintf("SELECT %s FROM `tt`.`%s` FOR VERSION AS OF %d  TABLET(%s) ", cols, table, x, strings.Join(ids, ","))
	if where != "" {
		q += " WHERE " + where
	}
	return q
}

// unionOfSplits reads table as of x one tablet per query and returns the
// union, sorted.
func (f *ttFixture) unionOfSplits(t *testing.T, table, cols string, x int64, where string) string {
	t.Helper()
	var all [][]string
	for _, id := range f.tablets(t, table) {
		all = append(all, f.bothRows(t, splitSQL(table, cols, x, []int64{id}, where))...)
	}
	sortRows(all)
	return rowsText(all)
}

// TestAcceptanceTimeTravelDuplicate: a DUPLICATE KEY row-binlog table read
// FOR VERSION AS OF x has exactly the rows committed at or before x,
// split by split, with WHERE and LIMIT; MaxInt64 and a future TSO read the
// current data, 0 reads nothing (docs/time-travel.md §1.3).
func TestAcceptanceTimeTravelDuplicate(t *testing.T) {
	f := newTTFixture(t, Config{})
	if got := f.unionOfSplits(t, "dup", "`k`, `v`", f.x1, ""); got != "1|10,2|20,3|30" {
		t.Fatalf("dup as of x1: %s", got)
	}
	if got := f.unionOfSplits(t, "dup", "`v`", f.x1, "k >= 2"); got != "20,30" {
		t.Fatalf("dup as of x1 WHERE k >= 2: %s", got)
	}
	all := f.tablets(t, "dup")
	if got := rowsText(f.bothRows(t, splitSQL("dup", "*", f.x1, all, ""))); got != "1|10,2|20,3|30" {
		t.Fatalf("dup * as of x1, every tablet: %s", got)
	}
	if got := f.bothRows(t, splitSQL("dup", "k", f.x1, all, "")+" LIMIT 2"); len(got) != 2 {
		t.Fatalf("LIMIT 2: %v", got)
	}
	if got := rowsText(f.bothRows(t, "SELECT k, v FROM tt.dup FOR VERSION AS OF 0")); got != "" {
		t.Fatalf("as of 0: %s", got)
	}
	current := "1|10,1|11,2|20,3|30,4|40"
	if got := rowsText(f.bothRows(t, "SELECT k, v FROM tt.dup FOR VERSION AS OF 9223372036854775807")); got != current {
		t.Fatalf("as of MaxInt64: %s", got)
	}
	future := f.s.Store().CurrentTSO().Value + 1<<30
	if got := rowsText(f.bothRows(t, splitSQL("dup", "k, v", future, all, ""))); got != current {
		t.Fatalf("as of a future TSO: %s, want the current data", got)
	}
	// Unqualified, with an alias, after USE.
	if _, err := f.conn.ExecContext(testCtx(t), "USE tt"); err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf("SELECT d.k FROM dup FOR VERSION AS OF %d d WHERE d.v > 15", f.x1)
	if got, err := mysqlText(testCtx(t), f.conn, q); err != nil || rowsText(sorted(got)) != "2,3" {
		t.Fatalf("%s: %v (%v)", q, got, err)
	}
}

func sorted(rows [][]string) [][]string { sortRows(rows); return rows }

// TestAcceptanceTimeTravelMergeOnWrite: a merge-on-write table with
// historical values read as of x shows each key's value at x: updated keys
// their old value, a deleted and re-inserted key its pre-delete value, a key
// inserted later is absent (test_time_travel_mow*.groovy).
func TestAcceptanceTimeTravelMergeOnWrite(t *testing.T) {
	f := newTTFixture(t, Config{})
	if got := f.unionOfSplits(t, "mow", "`k`, `v`", f.x1, ""); got != "1|10,2|20,3|30" {
		t.Fatalf("mow as of x1: %s", got)
	}
	if got := f.unionOfSplits(t, "mow", "`k`", f.x1, "v >= 20"); got != "2,3" {
		t.Fatalf("mow as of x1 WHERE v >= 20: %s", got)
	}
	if got := rowsText(f.bothRows(t, "SELECT k, v FROM tt.mow FOR VERSION AS OF 9223372036854775807")); got != "1|10,2|200,3|300,4|40" {
		t.Fatalf("mow as of MaxInt64: %s", got)
	}
}

// TestAcceptanceTimeTravelErrors: Doris's analysis errors for tables time
// travel cannot read, and the TTL error of a merge-on-write target whose
// changes have expired, over MySQL (errCode = 2) and Flight (INTERNAL).
func TestAcceptanceTimeTravelErrors(t *testing.T) {
	f := newTTFixture(t, Config{})
	x := strconv.FormatInt(f.x1, 10)
	// Each error both on the input's split shape (read straight from
	// storage) and with a WHERE (planned by go-mysql-server).
	for _, tail := range []string{"", " WHERE k > 0"} {
		wantDorisError(t, f.conn, f.fs, "SELECT k FROM tt.plain FOR VERSION AS OF "+x+tail,
			"FOR VERSION/TIME AS OF requires row binlog")
		wantDorisError(t, f.conn, f.fs, "SELECT k FROM tt.mow_nohist FOR VERSION AS OF "+x+tail,
			"FOR VERSION/TIME AS OF on merge-on-write table requires binlog.need_historical_value=true")
	}
	// The snapshot clause comes before TABLET in Doris's grammar.
	if _, err := mysqlText(testCtx(t), f.conn, fmt.Sprintf("SELECT k FROM tt.dup TABLET(%d) FOR VERSION AS OF %s", f.tablets(t, "dup")[0], x)); err == nil {
		t.Error("TABLET(...) FOR VERSION AS OF was accepted")
	}
	// Ten minutes after x1 (binlog.ttl_seconds = 600) the MoW changes after
	// x1 are gone; the DUP table is not limited by the TTL.
	f.clock.Set(time.Date(2026, 9, 14, 10, 10, 0, 0, time.UTC))
	for _, tail := range []string{"", " WHERE k > 0"} {
		wantDorisError(t, f.conn, f.fs, "SELECT k FROM tt.mow FOR VERSION AS OF "+x+tail,
			"Row binlog offset has expired according to binlog.ttl_seconds")
	}
	if got := rowsText(f.bothRows(t, "SELECT k, v FROM tt.dup FOR VERSION AS OF "+x)); got != "1|10,2|20,3|30" {
		t.Fatalf("dup past the TTL: %s", got)
	}
}

// TestAcceptanceCommitTSOColumn: __DORIS_COMMIT_TSO_COL__ holds the commit
// TSO of each row's latest write; it can be named on a row-binlog table
// (Nereids binds every base-schema column), `*` shows it only under
// show_hidden_columns, and a table without row binlog has no such column.
func TestAcceptanceCommitTSOColumn(t *testing.T) {
	f := newTTFixture(t, Config{})
	x := strconv.FormatInt(f.x1, 10)
	got := f.bothRows(t, "SELECT k, __DORIS_COMMIT_TSO_COL__ FROM tt.mow WHERE k IN (1, 2)")
	if len(got) != 2 || tsoOf(t, got[0][1]) > f.x1 || tsoOf(t, got[1][1]) <= f.x1 {
		t.Fatalf("commit TSOs %v: key 1 written before x1 = %s, key 2 rewritten after it", got, x)
	}
	// The DUP rows of the first batch carry their INSERT's commit TSO.
	dupX := f.bothRows(t, "SELECT MAX(__DORIS_COMMIT_TSO_COL__) FROM tt.dup FOR VERSION AS OF "+x)
	if len(dupX) != 1 || tsoOf(t, dupX[0][0]) > f.x1 || tsoOf(t, dupX[0][0]) <= 0 {
		t.Fatalf("MAX(commit TSO) as of x1: %v, want the first batch's TSO", dupX)
	}
	if got := f.bothRows(t, "SELECT k FROM tt.dup FOR VERSION AS OF "+dupX[0][0]); len(got) != 3 {
		t.Fatalf("as of the first batch's TSO: %v", got)
	}
	if got := rowsText(f.bothRows(t, "SELECT k FROM `tt`.`dup`  WHERE __DORIS_COMMIT_TSO_COL__ <= "+x)); got != "1,2,3" {
		t.Fatalf("WHERE commit TSO <= x1: %s", got)
	}
	if cols := mysqlColumns(t, f.conn, "SELECT * FROM tt.mow"); cols != "k,v" {
		t.Fatalf("* without show_hidden_columns: %s", cols)
	}
	if _, err := f.conn.ExecContext(testCtx(t), "SET show_hidden_columns = true"); err != nil {
		t.Fatal(err)
	}
	if err := f.fs.exec("SET show_hidden_columns = true"); err != nil {
		t.Fatal(err)
	}
	if cols := mysqlColumns(t, f.conn, "SELECT * FROM tt.mow"); cols != "k,v,"+commitTSOCol {
		t.Fatalf("* with show_hidden_columns: %s", cols)
	}
	if got := f.bothRows(t, "SELECT * FROM tt.dup FOR VERSION AS OF "+x+" WHERE k = 1"); rowsText(got) != "1|10|"+dupX[0][0] {
		t.Fatalf("* as of x1 with show_hidden_columns: %v, want 1|10|%s", got, dupX[0][0])
	}
	wantDorisError(t, f.conn, f.fs, "SELECT __DORIS_COMMIT_TSO_COL__ FROM tt.plain",
		"Unknown column '__DORIS_COMMIT_TSO_COL__' in 'table list' in PROJECT clause")
}

const commitTSOCol = "__DORIS_COMMIT_TSO_COL__"

func tsoOf(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("commit TSO %q: %v", s, err)
	}
	return v
}

// TestAcceptancePreTimeTravelFE: an FE from before OLAP time travel reads
// the current data for FOR VERSION AS OF, without an error, and has no
// commit-TSO column; the switch works at start and through /api/_sim/faults.
func TestAcceptancePreTimeTravelFE(t *testing.T) {
	f := newTTFixture(t, Config{PreTimeTravelFE: true})
	x := strconv.FormatInt(f.x1, 10)
	check := func(when string) {
		t.Helper()
		if got := f.unionOfSplits(t, "dup", "k, v", f.x1, ""); got != "1|10,1|11,2|20,3|30,4|40" {
			t.Fatalf("%s: dup as of x1 read %s, want the current data", when, got)
		}
		if got := rowsText(f.bothRows(t, "SELECT k FROM tt.plain FOR VERSION AS OF "+x)); got != "1" {
			t.Fatalf("%s: a table without binlog read %s, want its rows and no error", when, got)
		}
		wantDorisError(t, f.conn, f.fs, "SELECT __DORIS_COMMIT_TSO_COL__ FROM tt.dup LIMIT 0",
			"Unknown column '__DORIS_COMMIT_TSO_COL__' in 'table list' in PROJECT clause")
	}
	check("started with PreTimeTravelFE")
	setFault(t, f.s, `{"pre_time_travel_fe": false}`)
	if got := f.unionOfSplits(t, "dup", "k, v", f.x1, ""); got != "1|10,2|20,3|30" {
		t.Fatalf("after pre_time_travel_fe false: %s", got)
	}
	setFault(t, f.s, `{"pre_time_travel_fe": true}`)
	check("after pre_time_travel_fe true")
}

func setFault(t *testing.T, s *Server, body string) {
	t.Helper()
	if code, out := httpDo(t, s, "POST", "/api/_sim/faults", body, nil); code != 200 || !strings.Contains(string(out), `"code":0`) {
		t.Fatalf("POST /api/_sim/faults %s: %d %s", body, code, out)
	}
}
