package sqlengine

import (
	"reflect"
	"testing"
	"time"
)

const kvDDL = `CREATE TABLE kv (k INT, v VARCHAR(32))
UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.need_historical_value" = "true")`

func newKV(t *testing.T) (*Session, *Engine, *testClock) {
	t.Helper()
	clock := &testClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	eng, _ := newTestEngine(t, clock)
	s := eng.NewSession("root")
	t.Cleanup(s.Close)
	mustExec(t, s, "SET time_zone = 'UTC'")
	mustExec(t, s, "CREATE DATABASE d")
	mustExec(t, s, "USE d")
	mustExec(t, s, kvDDL)
	return s, eng, clock
}

const detailAll = `SELECT k, v, __DORIS_BINLOG_OP__, __DORIS_BINLOG_TSO__ FROM kv@incr('incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__`

func TestTransactionCommitSharesOneTSO(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "INSERT INTO kv VALUES (1, 'a'), (2, 'b')")
	mustExec(t, s, "UPDATE kv SET v = 'c' WHERE k = 1")
	// Reads inside the transaction see its own writes.
	cols, rows := mustRows(t, s, "SELECT k, v FROM kv ORDER BY k")
	if got := textRows(cols, rows); !reflect.DeepEqual(got, [][]string{{"1", "c"}, {"2", "b"}}) {
		t.Fatalf("read in transaction = %v", got)
	}
	// Another session does not see uncommitted rows.
	other := s.eng.NewSession("root")
	defer other.Close()
	if _, rows := mustRows(t, other, "SELECT * FROM d.kv"); len(rows) != 0 {
		t.Fatalf("uncommitted rows visible to another session: %v", rows)
	}
	mustExec(t, s, "COMMIT")

	_, rows = mustRows(t, s, detailAll)
	if len(rows) == 0 {
		t.Fatal("no binlog records after COMMIT")
	}
	tso := rows[0][3]
	for _, r := range rows {
		if r[3] != tso {
			t.Fatalf("transaction rows have different TSOs: %v", rows)
		}
	}
	_, rows = mustRows(t, s, "SELECT k, v FROM kv ORDER BY k")
	if len(rows) != 2 || rows[0][1] != "c" {
		t.Fatalf("committed rows = %v", rows)
	}
}

func TestTransactionRollbackWritesNothing(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, "START TRANSACTION")
	mustExec(t, s, "INSERT INTO kv VALUES (1, 'a')")
	mustExec(t, s, "ROLLBACK")
	if _, rows := mustRows(t, s, detailAll); len(rows) != 0 {
		t.Fatalf("binlog after ROLLBACK: %v", rows)
	}
	if _, rows := mustRows(t, s, "SELECT * FROM kv"); len(rows) != 0 {
		t.Fatalf("rows after ROLLBACK: %v", rows)
	}
}

func TestUniqueUpsertUpdateDeleteRecords(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 'a')")
	res := mustExec(t, s, "INSERT INTO kv (v, k) VALUES ('b', 1), ('x', 2)")
	if res.AffectedRows != 2 {
		t.Fatalf("AffectedRows = %d, want 2", res.AffectedRows)
	}
	mustExec(t, s, "UPDATE kv SET v = 'y' WHERE k = 2")
	mustExec(t, s, "DELETE FROM kv WHERE k = 1")
	cols, rows := mustRows(t, s, "SELECT k, v FROM kv")
	if got := textRows(cols, rows); !reflect.DeepEqual(got, [][]string{{"2", "y"}}) {
		t.Fatalf("table = %v", got)
	}
	cols, rows = mustRows(t, s, `SELECT k, v, __DORIS_BINLOG_OP__ FROM kv@incr('incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__`)
	want := [][]string{
		{"1", "a", "0"},                  // insert
		{"1", "a", "2"}, {"1", "b", "3"}, // upsert of key 1 = update
		{"2", "x", "0"},
		{"2", "x", "2"}, {"2", "y", "3"}, // UPDATE ... WHERE
		{"1", "b", "1"}, // DELETE ... WHERE
	}
	if got := textRows(cols, rows); !reflect.DeepEqual(got, want) {
		t.Fatalf("detail records:\n got %v\nwant %v", got, want)
	}
}

func TestFailedAutocommitStatementLeavesNothing(t *testing.T) {
	s, _, _ := newKV(t)
	queryErr(t, s, "INSERT INTO kv VALUES (1, 'a'), (2, 'this value is far too long for a varchar of thirty-two')")
	if _, rows := mustRows(t, s, "SELECT * FROM kv"); len(rows) != 0 {
		t.Fatalf("rows after failed INSERT: %v", rows)
	}
	mustExec(t, s, "INSERT INTO kv VALUES (3, 'c')")
	if _, rows := mustRows(t, s, "SELECT * FROM kv"); len(rows) != 1 {
		t.Fatalf("rows after next INSERT: %v", rows)
	}
}
