package sqlengine

import (
	"reflect"
	"testing"
)

func TestRewriteDorisRefs(t *testing.T) {
	cases := []struct{ in, db, want string }{
		{"SELECT * FROM t@incr()", "d", "SELECT * FROM __doris_incr('t', 'd', 't') AS `t`"},
		{"SELECT * FROM `my``db`.`t`@incr(\"startTimestamp\" = \"2026-01-01 00:00:00\") o WHERE o.k = 1", "",
			"SELECT * FROM __doris_incr('o', 'my`db', 't', 'startTimestamp', '2026-01-01 00:00:00') o WHERE o.k = 1"},
		{"SELECT `id` FROM `sales`.`orders`  TABLET(1,2)  WHERE x = 'TABLET(3)' LIMIT 5", "",
			"SELECT `id` FROM __doris_tablet('orders', 'sales', 'orders', '1', '2') AS `orders`  WHERE x = 'TABLET(3)' LIMIT 5"},
		{"SELECT 'a@incr()' FROM t", "d", "SELECT 'a@incr()' FROM t"},
		{"SELECT * FROM t@incr('k' = 'it''s')", "d", "SELECT * FROM __doris_incr('t', 'd', 't', 'k', 'it''s') AS `t`"},
	}
	for _, tc := range cases {
		got, changed, err := rewriteDorisRefs(tc.in, tc.db, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got != tc.want || changed != (tc.in != tc.want) {
			t.Fatalf("rewrite %s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if _, _, err := rewriteDorisRefs("SELECT * FROM t@incr()", "", nil); err == nil {
		t.Fatal("unqualified @incr without a database accepted")
	}
	if _, _, err := rewriteDorisRefs("SELECT * FROM t@incr('a' 'b')", "d", nil); err == nil {
		t.Fatal("malformed @incr accepted")
	}
}

// TestIncrStarHidesBinlogColumns: in Doris the binlog columns of an @incr
// read are hidden, so `*` means the table's own columns and the reference
// connector names the hidden ones explicitly.
func TestIncrStarHidesBinlogColumns(t *testing.T) {
	cols := func(db, table string) []string {
		if db == "d" && table == "t" {
			return []string{"k", "v"}
		}
		return nil
	}
	cases := []struct{ in, want string }{
		{"SELECT *, __DORIS_BINLOG_TSO__ FROM t@incr()",
			"SELECT `t`.`k`, `t`.`v`, __DORIS_BINLOG_TSO__ FROM __doris_incr('t', 'd', 't') AS `t`"},
		{"SELECT o.*, 2 * 3 FROM d.t@incr() o",
			"SELECT `o`.`k`, `o`.`v`, 2 * 3 FROM __doris_incr('o', 'd', 't') o"},
		{"SELECT COUNT(*) FROM t@incr()", "SELECT COUNT(*) FROM __doris_incr('t', 'd', 't') AS `t`"},
		{"SELECT * FROM (SELECT * FROM t@incr()) x",
			"SELECT * FROM (SELECT `t`.`k`, `t`.`v` FROM __doris_incr('t', 'd', 't') AS `t`) x"},
	}
	for _, tc := range cases {
		got, _, err := rewriteDorisRefs(tc.in, "d", cols)
		if err != nil || got != tc.want {
			t.Fatalf("rewrite %s\n got %s (%v)\nwant %s", tc.in, got, err, tc.want)
		}
	}
}

func TestCleanStatement(t *testing.T) {
	got, err := cleanStatement(" /* a */ -- b\n /* c */ SELECT 1 ; ")
	if err != nil || got != "SELECT 1" {
		t.Fatalf("cleanStatement = %q, %v", got, err)
	}
	if _, err := cleanStatement("/* open"); err == nil {
		t.Fatal("unterminated comment accepted")
	}
}

func TestIncrAliasesAndQualifiedColumns(t *testing.T) {
	s, _ := setupOrders(t)
	other := s.eng.NewSession("root") // no current database
	defer other.Close()
	mustExec(t, other, "SET time_zone = 'UTC'")
	for _, q := range []string{
		"SELECT orders.order_id FROM sales.orders@incr() ORDER BY orders.order_id",
		"SELECT o.order_id FROM `sales`.`orders`@incr() AS o ORDER BY o.order_id",
		"SELECT o.order_id FROM sales.orders@incr() o WHERE o.order_id > 0 ORDER BY 1 LIMIT 10",
	} {
		cols, rows := mustRows(t, other, q)
		if got := textRows(cols, rows); !reflect.DeepEqual(got, [][]string{{"1"}, {"3"}, {"4"}}) {
			t.Fatalf("%s = %v", q, got)
		}
	}
	if se := queryErr(t, other, "SELECT * FROM orders@incr()"); se.Code != 1046 {
		t.Fatalf("no database: %+v", se)
	}
}

// Doris ends a statement's code at `--` whether or not a space follows
// (DorisLexer.g4 SIMPLE_COMMENT), so a table reference inside such a
// comment is never rewritten, while a non-ASCII table name is one word.
func TestRewriteSkipsDashCommentWithoutSpace(t *testing.T) {
	for _, q := range []string{"SELECT 1 --t@incr()\n", "SELECT 1 --t TABLET(1)"} {
		got, changed, err := rewriteDorisRefs(q, "d", nil)
		if err != nil || changed || got != q {
			t.Errorf("rewriteDorisRefs(%q) = %q, %v, %v; want it unchanged", q, got, changed, err)
		}
	}
	got, _, err := rewriteDorisRefs("SELECT * FROM càfé@incr()", "d", nil)
	if want := "SELECT * FROM __doris_incr('càfé', 'd', 'càfé') AS `càfé`"; err != nil || got != want {
		t.Errorf("rewrite = %q, %v; want %q", got, err, want)
	}
}

// A statement runs with its `--` comments read as Doris reads them
// (DorisLexer.g4 SIMPLE_COMMENT): no space needed after the dashes, and a
// backslash right before the newline continues the comment.
func TestQueryDashCommentsAsDoris(t *testing.T) {
	s, _, _ := newKV(t)
	for q, want := range map[string]string{
		"SELECT 1 --x\n":         "1",
		"SELECT 2--comment":      "2",
		"SELECT 3 --x \\\n+ 1\n": "3",
		"SELECT 4 -- x\n+ 1":     "5",
		"SELECT '--x' AS c":      "--x",
		"SELECT 6 - -1 AS minus": "7",
	} {
		cols, rows := mustRows(t, s, q)
		if got := textRows(cols, rows); len(got) != 1 || got[0][0] != want {
			t.Errorf("%q = %v, want %s", q, got, want)
		}
	}
}
