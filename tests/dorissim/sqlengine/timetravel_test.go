package sqlengine

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

func TestRewriteTimeTravel(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT `k` FROM `db1`.`t` FOR VERSION AS OF 123 TABLET(10001,10002)  WHERE k > 1",
			"SELECT `k` FROM __doris_asof('t', 'db1', 't', '123', '10001', '10002') AS `t`  WHERE k > 1"},
		{"SELECT x.k FROM t FOR VERSION AS OF 9223372036854775807 x",
			"SELECT x.k FROM __doris_asof('x', 'db', 't', '9223372036854775807') x"},
		{"SELECT * FROM t for version as of 0 TABLET(7) AS y JOIN u ON y.k = u.k",
			"SELECT * FROM __doris_asof('y', 'db', 't', '0', '7') AS y JOIN u ON y.k = u.k"},
		// Not a snapshot clause: left alone (TABLET before the clause does not parse in Doris).
		{"SELECT * FROM t FOR UPDATE", "SELECT * FROM t FOR UPDATE"},
		{"SELECT * FROM t TABLET(1) FOR VERSION AS OF 5", "SELECT * FROM t TABLET(1) FOR VERSION AS OF 5"},
	}
	for _, tc := range cases {
		got, _, err := rewriteTimeTravel(tc.in, "db")
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got != tc.want {
			t.Fatalf("rewrite %q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	for q, want := range map[string]string{
		"SELECT * FROM t FOR VERSION AS OF 'v1'":                "Syntax error in FOR VERSION AS OF clause near ''v1''",
		"SELECT * FROM t FOR VERSION AS OF 1.5":                 "Syntax error in FOR VERSION AS OF clause near '1.5'",
		"SELECT * FROM t FOR TIME AS OF '2026-09-14 10:00:00'":  "FOR TIME AS OF is not modelled",
		"SELECT * FROM t FOR VERSION AS OF 5 TABLET(1, x)":      "Syntax error in TABLET clause near 'x'",
		"SELECT * FROM other.t FOR VERSION AS OF 5 TABLET(1, 2": "missing ')'",
	} {
		_, _, err := rewriteTimeTravel(q, "db")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %v, want %q", q, err, want)
		}
	}
}

// ttSession is an engine with the time-travel table function registered,
// a DUP and a MoW row-binlog table and a table without binlog.
func ttSession(t *testing.T) (*Session, *storage.Store, *testClock) {
	t.Helper()
	clock := &testClock{now: time.Date(2026, 9, 14, 10, 0, 0, 0, time.UTC)}
	eng, store := newTestEngine(t, clock)
	eng.prov.tableFns[asofFuncName] = &asofFunc{store: store}
	s := eng.NewSession("root")
	t.Cleanup(s.Close)
	mustExec(t, s, "CREATE DATABASE db")
	mustExec(t, s, "USE db")
	mustExec(t, s, `CREATE TABLE dup (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`)
	mustExec(t, s, `CREATE TABLE mow (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW",
  "binlog.need_historical_value" = "true", "binlog.ttl_seconds" = "60")`)
	mustExec(t, s, `CREATE TABLE plain (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1`)
	return s, store, clock
}

func asofRows(t *testing.T, s *Session, q string) [][]string {
	t.Helper()
	rq, ok, err := rewriteTimeTravel(q, "db")
	if err != nil || !ok {
		t.Fatalf("rewrite %s: ok=%v err=%v", q, ok, err)
	}
	cols, rows := mustRows(t, s, rq)
	return textRows(cols, rows)
}

// The split query the input sends (snapshot clause, TABLET, WHERE) reads
// the table as of the target through the engine.
func TestTimeTravelQueries(t *testing.T) {
	s, store, clock := ttSession(t)
	mustExec(t, s, "INSERT INTO dup VALUES (1, 10), (2, 20)")
	mustExec(t, s, "INSERT INTO mow VALUES (1, 10), (2, 20), (3, 30)")
	x := store.CommittedTSO().Value
	clock.Set(time.Date(2026, 9, 14, 10, 0, 1, 0, time.UTC))
	mustExec(t, s, "INSERT INTO dup VALUES (3, 30), (1, 11)")
	mustExec(t, s, "INSERT INTO mow VALUES (2, 200), (4, 40)")
	mustExec(t, s, "DELETE FROM mow WHERE k = 3")
	xs := " FOR VERSION AS OF " + tsoText(x)

	if got, want := asofRows(t, s, "SELECT k, v FROM dup"+xs+" ORDER BY k, v"), [][]string{{"1", "10"}, {"2", "20"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("dup: %v, want %v", got, want)
	}
	if got, want := asofRows(t, s, "SELECT k, v FROM mow"+xs+" WHERE v > 10 ORDER BY k"), [][]string{{"2", "20"}, {"3", "30"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("mow with WHERE: %v, want %v", got, want)
	}
	// The splits of every tablet add up to the whole table at x.
	info, err := store.Table("db", "mow")
	if err != nil {
		t.Fatal(err)
	}
	var union []string
	for _, id := range info.TabletIDs {
		for _, r := range asofRows(t, s, "SELECT k, v FROM `db`.`mow`"+xs+" TABLET("+tsoText(id)+") ") {
			union = append(union, strings.Join(r, "|"))
		}
	}
	if got := strings.Join(sortedCopy(union), ","); got != "1|10,2|20,3|30" {
		t.Fatalf("mow splits: %s", got)
	}
}

func TestTimeTravelErrors(t *testing.T) {
	s, store, clock := ttSession(t)
	mustExec(t, s, "INSERT INTO mow VALUES (1, 10)")
	x := store.CommittedTSO().Value
	for q, want := range map[string]string{
		"SELECT * FROM plain FOR VERSION AS OF 1":         "FOR VERSION/TIME AS OF requires row binlog",
		"SELECT * FROM mow FOR VERSION AS OF 1 TABLET(1)": "Unknown tablet id 1 in table mow",
	} {
		rq, _, err := rewriteTimeTravel(q, "db")
		if err != nil {
			t.Fatal(err)
		}
		if e := queryErr(t, s, rq); e.Message != want {
			t.Fatalf("%s: %q, want %q", q, e.Message, want)
		}
	}
	clock.Set(time.Date(2026, 9, 14, 10, 1, 0, 0, time.UTC)) // x is 60 s old: past the TTL
	rq, _, _ := rewriteTimeTravel("SELECT * FROM mow FOR VERSION AS OF "+tsoText(x), "db")
	if e := queryErr(t, s, rq); e.Message != "Row binlog offset has expired according to binlog.ttl_seconds" {
		t.Fatalf("expired: %q", e.Message)
	}
}

func tsoText(v int64) string { return strconv.FormatInt(v, 10) }

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

// TestRewriteTimeTravelWired: through rewriteDorisRefsIn, the snapshot
// clause, the commit-TSO column and the pre-time-travel FE rewrite as the
// engine runs them.
func TestRewriteTimeTravelWired(t *testing.T) {
	cols := func(db, table string) []string { return []string{"k", "v"} }
	has := func(db, table string) bool { return table != "plain" }
	cases := []struct {
		name, in, want string
		env            rewriteEnv
	}{
		{"split", "SELECT `k` FROM `db`.`t` FOR VERSION AS OF 7  TABLET(1,2)  WHERE k > 1", "SELECT `k` FROM __doris_asof('t', 'db', 't', '7', '1', '2') AS `t`  WHERE k > 1",
			rewriteEnv{cols: cols, hasCommitTSO: has}},
		{"column named", "SELECT k, __DORIS_COMMIT_TSO_COL__ FROM t WHERE k = 1", "SELECT k, __DORIS_COMMIT_TSO_COL__ FROM __doris_tablet('t', 'd', 't', '+all_tablets', '+commit_tso') AS `t` WHERE k = 1",
			rewriteEnv{cols: cols, hasCommitTSO: has}},
		{"star hides it", "SELECT *, __DORIS_COMMIT_TSO_COL__ FROM t FOR VERSION AS OF 7", "SELECT `t`.`k`, `t`.`v`, __DORIS_COMMIT_TSO_COL__ FROM __doris_asof('t', 'd', 't', '7', '+commit_tso') AS `t`",
			rewriteEnv{cols: cols, hasCommitTSO: has}},
		{"show_hidden_columns", "SELECT * FROM t TABLET(3)", "SELECT * FROM __doris_tablet('t', 'd', 't', '3', '+commit_tso') AS `t`",
			rewriteEnv{cols: cols, hasCommitTSO: has, showHidden: true}},
		{"no binlog", "SELECT * FROM plain", "SELECT * FROM plain", rewriteEnv{cols: cols, hasCommitTSO: has, showHidden: true}},
		{"not a query", "DELETE FROM t WHERE __DORIS_COMMIT_TSO_COL__ = 1", "DELETE FROM t WHERE __DORIS_COMMIT_TSO_COL__ = 1",
			rewriteEnv{cols: cols, hasCommitTSO: has}},
		{"old FE", "SELECT k FROM t FOR VERSION AS OF 7 TABLET(1) x", "SELECT k FROM __doris_tablet('x', 'd', 't', '1') x",
			rewriteEnv{cols: cols, ignoreTimeTravel: true}},
		{"old FE, every tablet", "SELECT k FROM t FOR TIME AS OF '2026-09-14 10:00:00'", "SELECT k FROM __doris_tablet('t', 'd', 't', '+all_tablets') AS `t`",
			rewriteEnv{cols: cols, ignoreTimeTravel: true}},
	}
	for _, tc := range cases {
		got, _, err := rewriteDorisRefsIn(tc.in, "d", tc.env)
		if err != nil || got != tc.want {
			t.Errorf("%s: rewrite %s\n got %s (%v)\nwant %s", tc.name, tc.in, got, err, tc.want)
		}
	}
}
