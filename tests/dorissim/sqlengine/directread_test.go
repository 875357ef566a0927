package sqlengine

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// readAll drains a result, returning its column names, types and rows.
func drainQuery(t *testing.T, s *Session, q string) (*Result, string, []string) {
	t.Helper()
	res, err := s.Query(testCtx(t), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var head []string
	for _, c := range res.Columns {
		head = append(head, c.Name+" "+c.Type.String())
	}
	var rows []string
	for {
		row, err := res.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rows = append(rows, fmt.Sprintf("%v", row))
	}
	return res, strings.Join(head, ", "), rows
}

// TestDirectReadMatchesGMS checks that the snapshot-split and @incr shapes,
// served straight from storage, return exactly what the same query returns
// through go-mysql-server (forced here by a WHERE that keeps every row).
func TestDirectReadMatchesGMS(t *testing.T) {
	eng, store := newTestEngine(t, nil)
	s := eng.NewSession("root")
	defer s.Close()
	mustExec(t, s, "CREATE DATABASE d")
	mustExec(t, s, "CREATE TABLE d.t (k BIGINT NOT NULL, v VARCHAR(8), dec DECIMAL(10,2), dt DATETIME(3), a ARRAY<INT>) "+
		"UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES (\"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\", \"binlog.need_historical_value\" = \"true\")")
	for i := 0; i < 30; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO d.t VALUES (%d, 'v%d', %d.5, '2026-01-02 03:04:05.678', [%d, 2])", i, i, i, i))
	}
	mustExec(t, s, "UPDATE d.t SET v = 'upd' WHERE k < 5")
	mustExec(t, s, "DELETE FROM d.t WHERE k > 25")
	info, err := store.Table("d", "t")
	if err != nil {
		t.Fatal(err)
	}
	tablets := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(info.TabletIDs)), ","), "[]")
	incr := "@incr('startTimestamp' = '2000-01-01 00:00:00', 'incrementType' = 'DETAIL')"
	order := " ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__"
	cases := []struct{ direct, viaGMS string }{
		{"SELECT * FROM `d`.`t`  TABLET(" + tablets + ") ", "SELECT * FROM `d`.`t`  TABLET(" + tablets + ") WHERE 1 = 1"},
		{"SELECT `v`, `k` FROM d.t TABLET(" + tablets + ")", "SELECT `v`, `k` FROM d.t TABLET(" + tablets + ") WHERE k >= 0"},
		{"SELECT * FROM d.t", "SELECT * FROM d.t WHERE 1 = 1"},
		{"SELECT *, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM `d`.`t`" + incr + order,
			"SELECT *, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM `d`.`t`" + incr + " WHERE 1 = 1" + order},
		{"SELECT `k`, __DORIS_BINLOG_OP__ FROM d.t" + incr, "SELECT `k`, __DORIS_BINLOG_OP__ FROM d.t" + incr + " WHERE 1 = 1" + order},
	}
	for _, tc := range cases {
		res, head, rows := drainQuery(t, s, tc.direct)
		if res.rows == nil {
			t.Fatalf("%s did not take the direct path", tc.direct)
		}
		gms, gmsHead, gmsRows := drainQuery(t, s, tc.viaGMS)
		if gms.rows != nil {
			t.Fatalf("%s took the direct path", tc.viaGMS)
		}
		if head != gmsHead || fmt.Sprint(rows) != fmt.Sprint(gmsRows) || len(rows) == 0 {
			t.Fatalf("direct and GMS results differ for %s\n direct %s %v\n gms    %s %v", tc.direct, head, rows, gmsHead, gmsRows)
		}
	}
	// Anything else is GMS's: an unknown column fails there, with its error.
	if _, err := s.Query(testCtx(t), "SELECT nope FROM d.t TABLET("+tablets+")"); err == nil {
		t.Fatal("unknown column accepted")
	}
}

// TestDirectCountMatchesGMS checks the bounded count probe served from
// storage against the same count through go-mysql-server, below, at and
// above the table's row count, after updates and deletes.
func TestDirectCountMatchesGMS(t *testing.T) {
	eng, _ := newTestEngine(t, nil)
	s := eng.NewSession("root")
	defer s.Close()
	mustExec(t, s, "CREATE DATABASE d")
	mustExec(t, s, "CREATE TABLE d.t (k BIGINT NOT NULL, v VARCHAR(8)) "+
		"UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES (\"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\")")
	for i := 0; i < 30; i++ {
		mustExec(t, s, fmt.Sprintf("INSERT INTO d.t VALUES (%d, 'v%d')", i, i))
	}
	mustExec(t, s, "UPDATE d.t SET v = 'upd' WHERE k < 5")
	mustExec(t, s, "DELETE FROM d.t WHERE k >= 25")
	for _, limit := range []int{0, 1, 24, 25, 26, 1000} {
		direct := fmt.Sprintf("SELECT COUNT(*) FROM (SELECT 1 FROM `d`.`t` LIMIT %d) probe", limit)
		viaGMS := fmt.Sprintf("SELECT COUNT(*) FROM (SELECT 1 FROM `d`.`t` WHERE 1 = 1 LIMIT %d) probe", limit)
		res, head, rows := drainQuery(t, s, direct)
		if res.static == nil {
			t.Fatalf("%s did not take the direct path", direct)
		}
		gms, gmsHead, gmsRows := drainQuery(t, s, viaGMS)
		if gms.static != nil {
			t.Fatalf("%s took the direct path", viaGMS)
		}
		want := fmt.Sprintf("[%d]", min(limit, 25))
		if head != gmsHead || fmt.Sprint(rows) != fmt.Sprint(gmsRows) || len(rows) != 1 || rows[0] != want {
			t.Fatalf("direct and GMS counts differ for %s\n direct %s %v\n gms    %s %v (want %s)", direct, head, rows, gmsHead, gmsRows, want)
		}
	}
	if _, err := s.Query(testCtx(t), "SELECT COUNT(*) FROM (SELECT 1 FROM d.nope LIMIT 5) probe"); err == nil {
		t.Fatal("count of a missing table accepted")
	}
}
