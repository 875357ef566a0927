package kafka

import (
	"strings"
	"testing"
)

func TestHeaderPositionOrder(t *testing.T) {
	pos := func(tso, db, table, lsn, op string) map[string]string {
		return map[string]string{"tso": tso, "database_schema": db, "table": table, "lsn": lsn, "operation": op}
	}
	// The order doris_binlog emits: (tso, db.table, lsn, op code).
	ordered := []map[string]string{
		pos("10", "a", "t", "5", "insert"),
		pos("10", "b", "t", "0", "insert"),
		pos("10", "b", "t", "0", "update_before"),
		pos("10", "b", "t", "0", "update_after"),
		pos("10", "b", "t", "1", "delete"),
		pos("11", "a", "t", "0", "insert"),
	}
	for i := 1; i < len(ordered); i++ {
		p, _, err := headerPosition(ordered[i-1], "x")
		if err != nil {
			t.Fatal(err)
		}
		q, _, err := headerPosition(ordered[i], "x")
		if err != nil {
			t.Fatal(err)
		}
		if !p.Less(*q) {
			t.Errorf("%v should come before %v", ordered[i-1], ordered[i])
		}
	}
	merged, _, _ := headerPosition(pos("10", "b", "t", "0", "update"), "x")
	after, _, _ := headerPosition(pos("10", "b", "t", "0", "update_after"), "x")
	if merged.Compare(*after) != 0 {
		t.Errorf("a merged update must stand where its update_after was: %+v %+v", merged, after)
	}
}

func TestHeaderPositionMalformed(t *testing.T) {
	if p, _, err := headerPosition(map[string]string{"operation": "read"}, "x"); p != nil || err != nil {
		t.Fatalf("a snapshot row has no position: %v %v", p, err)
	}
	for _, c := range []struct {
		h    map[string]string
		want string
	}{
		{map[string]string{"tso": "abc"}, "tso must be a positive integer"},
		{map[string]string{"tso": "5", "database_schema": "d"}, "no database_schema and table"},
		{map[string]string{"tso": "5", "database_schema": "d", "table": "t"}, "no lsn"},
		{map[string]string{"tso": "5", "database_schema": "d", "table": "t", "lsn": "-1"}, "lsn must be a non-negative integer"},
		{map[string]string{"tso": "5", "database_schema": "d", "table": "t", "lsn": "1", "operation": "upsert"}, `got "upsert"`},
	} {
		_, _, err := headerPosition(c.h, "last committed record of t/0 (offset 7)")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t/0 (offset 7)") {
			t.Errorf("%v: error %v; want %q naming the record", c.h, err, c.want)
		}
	}
}

// A position names its table as doris_binlog does (and orders by it): one
// identity per table, so that "a.b"+"c" and "a"+"b.c" differ.
func TestHeaderPositionTableIdentity(t *testing.T) {
	pos := func(db, table string) string {
		p, _, err := headerPosition(map[string]string{"tso": "1", "database_schema": db, "table": table, "lsn": "0", "operation": "insert"}, "x")
		if err != nil {
			t.Fatal(err)
		}
		return p.Table
	}
	if a, b := pos("a.b", "c"), pos("a", "b.c"); a == b {
		t.Errorf("a.b + c and a + b.c share the identity %q", a)
	}
	for _, c := range [][3]string{{"shop", "orders", "shop.orders"}, {"shop", "z.x", "shop.`z.x`"}, {"shop", "a b", "shop.`a b`"}, {"my`db", "t", "`my``db`.t"}} {
		if got := pos(c[0], c[1]); got != c[2] {
			t.Errorf("%s + %s: identity %q; want %q", c[0], c[1], got, c[2])
		}
	}
}
