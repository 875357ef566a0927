package doris

import "testing"

func TestQuoting(t *testing.T) {
	idents := map[string]string{"id": "`id`", "a`b": "`a``b`", "": "``", "``": "``````"}
	for in, want := range idents {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
	lits := map[string]string{
		"2026-09-14 10:03:00": "'2026-09-14 10:03:00'",
		"it's":                "'it''s'",
		`a\`:                  `'a\\'`,
		"a\x00b":              `'a\0b'`,
	}
	for in, want := range lits {
		if got := QuoteLiteral(in); got != want {
			t.Errorf("QuoteLiteral(%q) = %s, want %s", in, got, want)
		}
	}
	if ValidateLiteral("a\x00") == nil || ValidateLiteral("\xff") == nil || ValidateLiteral("ok ü") != nil {
		t.Fatal("ValidateLiteral")
	}
}

func TestSnapshotSQL(t *testing.T) {
	cases := []struct {
		cols    []string
		tablets []int64
		filter  string
		want    string
	}{
		{[]string{"id"}, []int64{1, 2}, "", "SELECT `id` FROM `sales`.`orders`  TABLET(1,2) "},
		{nil, []int64{7}, "", "SELECT * FROM `sales`.`orders`  TABLET(7) "},
		{[]string{}, nil, "", "SELECT * FROM `sales`.`orders`"},
		// No tablets: the statement the input sends to _query_plan.
		{[]string{"id", "na`me"}, nil, "id > 3", "SELECT `id`, `na``me` FROM `sales`.`orders` WHERE id > 3"},
		{[]string{"id"}, []int64{1, 2}, "id > 3", "SELECT `id` FROM `sales`.`orders`  TABLET(1,2)  WHERE id > 3"},
	}
	for _, c := range cases {
		if got := SnapshotSQL("sales", "orders", c.cols, c.tablets, c.filter); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

func TestIncrSQLWhereWithoutCondition(t *testing.T) {
	got := IncrSQLWhere("sales", "orders", []string{"order_id", "status"}, "2026-09-14 10:03:00", "2026-09-14 10:10:00", "min_delta", "")
	want := "SELECT `order_id`, `status`, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM `sales`.`orders`@incr(" +
		"'startTimestamp' = '2026-09-14 10:03:00', 'endTimestamp' = '2026-09-14 10:10:00', 'incrementType' = 'MIN_DELTA') " +
		"ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	got = IncrSQLWhere("d", "t", nil, "2026-09-14 10:03:00", "2026-09-14 10:10:00", "DETAIL", "")
	want = "SELECT *, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM `d`.`t`@incr(" +
		"'startTimestamp' = '2026-09-14 10:03:00', 'endTimestamp' = '2026-09-14 10:10:00', 'incrementType' = 'DETAIL') " +
		"ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestIncrSQLWhere(t *testing.T) {
	where := BinlogCondition(true, "amount > 10 OR status = 'x'")
	if want := "__DORIS_BINLOG_OP__ <> 2 AND (amount > 10 OR status = 'x')"; where != want {
		t.Fatalf("BinlogCondition %q, want %q", where, want)
	}
	if c := BinlogCondition(false, ""); c != "" {
		t.Fatalf("no condition gave %q", c)
	}
	if c := BinlogCondition(false, "a = 1"); c != "(a = 1)" {
		t.Fatalf("filter only gave %q", c)
	}
	got := IncrSQLWhere("d", "t", nil, "2026-09-14 10:03:00", "2026-09-14 10:10:00", "DETAIL", where)
	want := "SELECT *, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__ FROM `d`.`t`@incr(" +
		"'startTimestamp' = '2026-09-14 10:03:00', 'endTimestamp' = '2026-09-14 10:10:00', 'incrementType' = 'DETAIL') " +
		"WHERE __DORIS_BINLOG_OP__ <> 2 AND (amount > 10 OR status = 'x') " +
		"ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__, __DORIS_BINLOG_OP__"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestCountUpToSQL(t *testing.T) {
	got := CountUpToSQL("sa`les", "orders", 100001)
	want := "SELECT COUNT(*) FROM (SELECT 1 FROM `sa``les`.`orders` LIMIT 100001) probe"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
