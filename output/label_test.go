package output

import (
	"strings"
	"testing"
)

// src is one source table, as split builds it from the metadata.
var src = []string{"shop\x00orders"}

func TestDeterministicLabel(t *testing.T) {
	first := position{tso: 465123456789012345, lsn: 3, op: opInsert}
	last := position{tso: 465123456789099999, lsn: 7, op: opDelete}
	a := deterministicLabel("rpc", "shop.orders", src, first, last, 10)
	if a != deterministicLabel("rpc", "shop.orders", src, first, last, 10) {
		t.Fatal("same rows gave different labels")
	}
	want := "rpc_shop.orders_"
	if !strings.HasPrefix(a, strings.ReplaceAll(want, ".", "_")) || !strings.HasSuffix(a, "_465123456789012345-3i_465123456789099999-7d_10") {
		t.Fatalf("label %q does not show target and positions", a)
	}
	for name, other := range map[string]string{
		"count":  deterministicLabel("rpc", "shop.orders", src, first, last, 11),
		"target": deterministicLabel("rpc", "shop.orders2", src, first, last, 10),
		"first":  deterministicLabel("rpc", "shop.orders", src, position{tso: first.tso, lsn: 4, op: opInsert}, last, 10),
		"lastop": deterministicLabel("rpc", "shop.orders", src, first, position{tso: last.tso, lsn: 7, op: opUpdateAfter}, 10),
		"prefix": deterministicLabel("rpd", "shop.orders", src, first, last, 10),
	} {
		if other == a {
			t.Errorf("a different %s gave the same label %q", name, a)
		}
	}
}

func TestDeterministicLabelFitsDoris(t *testing.T) {
	maxPos := position{tso: 1<<63 - 1, lsn: 1<<63 - 1, op: opUpdateBefore}
	minPos := position{tso: -1 << 63, lsn: -1 << 63, op: "weird"}
	long := strings.Repeat("ä.`x y`", 40)
	prefix := strings.Repeat("p", 64)
	for _, l := range []string{
		deterministicLabel(prefix, long, src, minPos, maxPos, 1<<62),
		deterministicLabel("a", long, src, maxPos, maxPos, 1),
		deterministicLabel("a", "db.t", src, position{}, position{}, 0),
	} {
		if len(l) > maxLabelLen {
			t.Errorf("label %q is %d characters, over %d", l, len(l), maxLabelLen)
		}
		if sanitizeLabel(l) != l {
			t.Errorf("label %q has characters outside [-_A-Za-z0-9:]", l)
		}
	}
	// Names that sanitize alike still get distinct labels through the hash.
	if deterministicLabel("a", "db.t-1", src, position{}, position{}, 1) == deterministicLabel("a", "db.t_1", src, position{}, position{}, 1) {
		t.Fatal("targets differing only in sanitized characters share a label")
	}
}

// TestDeterministicLabelNamesTheSource: two sources (two tables, or one
// table name in two databases) that reach the same positions while feeding
// one target must not share a label, or the second load would be skipped
// as already loaded.
func TestDeterministicLabelNamesTheSource(t *testing.T) {
	first := position{tso: 900, lsn: 1, op: opInsert}
	last := position{tso: 900, lsn: 4, op: opInsert}
	seen := map[string][]string{}
	for _, sources := range [][]string{
		{"shop\x00orders"}, {"shop2\x00orders"}, {"shop\x00items"},
		{"shop\x00orders", "shop\x00items"}, {"shop\x00items", "shop\x00orders"},
		{"shop\x00ordersshop\x00items"},
	} {
		l := deterministicLabel("rpc", "all.orders", sources, first, last, 4)
		if other, ok := seen[l]; ok {
			t.Fatalf("sources %q and %q share label %q", other, sources, l)
		}
		seen[l] = sources
		if l != deterministicLabel("rpc", "all.orders", sources, first, last, 4) {
			t.Fatalf("sources %q: label not deterministic", sources)
		}
		if len(l) > maxLabelLen || sanitizeLabel(l) != l {
			t.Fatalf("label %q breaks Doris's label rule", l)
		}
	}
}
