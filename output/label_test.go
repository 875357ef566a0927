package output

import (
	"strings"
	"testing"
)

func TestDeterministicLabel(t *testing.T) {
	first := position{tso: 465123456789012345, lsn: 3, op: opInsert}
	last := position{tso: 465123456789099999, lsn: 7, op: opDelete}
	a := deterministicLabel("rpc", "shop.orders", first, last, 10)
	if a != deterministicLabel("rpc", "shop.orders", first, last, 10) {
		t.Fatal("same rows gave different labels")
	}
	want := "rpc_shop.orders_"
	if !strings.HasPrefix(a, strings.ReplaceAll(want, ".", "_")) || !strings.HasSuffix(a, "_465123456789012345-3i_465123456789099999-7d_10") {
		t.Fatalf("label %q does not show target and positions", a)
	}
	for name, other := range map[string]string{
		"count":  deterministicLabel("rpc", "shop.orders", first, last, 11),
		"target": deterministicLabel("rpc", "shop.orders2", first, last, 10),
		"first":  deterministicLabel("rpc", "shop.orders", position{tso: first.tso, lsn: 4, op: opInsert}, last, 10),
		"lastop": deterministicLabel("rpc", "shop.orders", first, position{tso: last.tso, lsn: 7, op: opUpdateAfter}, 10),
		"prefix": deterministicLabel("rpd", "shop.orders", first, last, 10),
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
		deterministicLabel(prefix, long, minPos, maxPos, 1<<62),
		deterministicLabel("a", long, maxPos, maxPos, 1),
		deterministicLabel("a", "db.t", position{}, position{}, 0),
	} {
		if len(l) > maxLabelLen {
			t.Errorf("label %q is %d characters, over %d", l, len(l), maxLabelLen)
		}
		if sanitizeLabel(l) != l {
			t.Errorf("label %q has characters outside [-_A-Za-z0-9:]", l)
		}
	}
	// Names that sanitize alike still get distinct labels through the hash.
	if deterministicLabel("a", "db.t-1", position{}, position{}, 1) == deterministicLabel("a", "db.t_1", position{}, position{}, 1) {
		t.Fatal("targets differing only in sanitized characters share a label")
	}
}

func TestPendingLabels(t *testing.T) {
	p := newPendingLabels()
	k := contentKey("db.t", []byte(`{"id":1}`))
	l1 := p.take(k, "pre")
	if !strings.HasPrefix(l1, "pre_") || len(l1) > maxLabelLen || sanitizeLabel(l1) != l1 {
		t.Fatalf("random label %q", l1)
	}
	if l2 := p.take(k, "pre"); l2 == l1 {
		t.Fatal("a label in use was handed out twice")
	}
	p.keep(k, l1)
	if got := p.take(k, "pre"); got != l1 {
		t.Fatalf("retry got %q, want the kept %q", got, l1)
	}
	if got := p.take(k, "pre"); got == l1 {
		t.Fatal("a kept label was reused after it was taken back")
	}
	for i := range maxPendingLabels + 10 {
		p.keep(contentKey("db.t", []byte{byte(i), byte(i >> 8)}), "x")
	}
	if len(p.m) > maxPendingLabels {
		t.Fatalf("pending labels grew to %d", len(p.m))
	}
}
