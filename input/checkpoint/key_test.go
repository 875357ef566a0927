package checkpoint

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestTableKeyExamples(t *testing.T) {
	for _, tc := range []struct{ db, table, want string }{
		{"shop", "orders", "doris_binlog_shop.orders"},
		{"a_b", "c", "doris_binlog_a_b.c"},
		{"a", "b_c", "doris_binlog_a.b_c"},
		{"my-db", "Order$s", "doris_binlog_my--db.-order-044s"},
		{"shop", "订单", "doris_binlog_shop.-350-256-242-345-215-225"},
		{"shop", "客户", "doris_binlog_shop.-345-256-242-346-210-267"},
	} {
		if got := TableKey(tc.db, tc.table); got != tc.want {
			t.Errorf("TableKey(%q, %q) = %q, want %q", tc.db, tc.table, got, tc.want)
		}
	}
}

// TestTableKeyCollisionsOfTheOldForm are the pairs that shared a key before.
func TestTableKeyCollisionsOfTheOldForm(t *testing.T) {
	for _, p := range [][4]string{
		{"a_b", "c", "a", "b_c"},
		{"shop", "订单", "shop", "客户"},
		{"a", "b:c", "a", "b/c"},
	} {
		if LegacyTableKey(p[0], p[1]) != LegacyTableKey(p[2], p[3]) {
			t.Fatalf("the old form did not collide for %v; the case proves nothing", p)
		}
		if TableKey(p[0], p[1]) == TableKey(p[2], p[3]) {
			t.Errorf("%s.%s and %s.%s share the key %q", p[0], p[1], p[2], p[3], TableKey(p[0], p[1]))
		}
	}
}

// unescapeKey inverts a readable TableKey, which shows the key names exactly
// one table.
func unescapeKey(k string) (db, table string, ok bool) {
	rest, ok := strings.CutPrefix(k, KeyPrefix)
	if !ok || strings.Count(rest, ".") != 1 {
		return "", "", false
	}
	d, tb, _ := strings.Cut(rest, ".")
	db, ok1 := unescapePart(d)
	table, ok2 := unescapePart(tb)
	return db, table, ok1 && ok2
}

func unescapePart(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '-' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case i+1 >= len(s):
			return "", false
		case s[i+1] == '-':
			b.WriteByte('-')
			i++
		case s[i+1] >= 'a' && s[i+1] <= 'z':
			b.WriteByte(s[i+1] - 'a' + 'A')
			i++
		case i+4 <= len(s):
			n, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(n))
			i += 3
		default:
			return "", false
		}
	}
	return b.String(), true
}

func checkKeyAlphabet(t *testing.T, k string) {
	t.Helper()
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			t.Fatalf("key %q holds %q, outside [a-z0-9_.-]", k, r)
		}
	}
	if len(k) > maxReadableKey+len(BackupSuffix) || SanitizeKey(k) != k {
		t.Fatalf("key %q is not a safe file name", k)
	}
}

func checkKeyPair(t *testing.T, db1, t1, db2, t2 string) {
	t.Helper()
	k1, k2 := TableKey(db1, t1), TableKey(db2, t2)
	checkKeyAlphabet(t, k1)
	checkKeyAlphabet(t, k2)
	if (db1 != db2 || t1 != t2) && k1 == k2 {
		t.Fatalf("%q.%q and %q.%q share the key %q", db1, t1, db2, t2, k1)
	}
	if !strings.HasPrefix(k1, digestPrefix) {
		if db, table, ok := unescapeKey(k1); !ok || db != db1 || table != t1 {
			t.Fatalf("key %q reads back as %q.%q (ok %v), want %q.%q", k1, db, table, ok, db1, t1)
		}
	}
}

// TestTableKeyInjectiveRandom draws name pairs from a small alphabet full
// of the characters that used to collapse, so that near-misses are common.
func TestTableKeyInjectiveRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	alphabet := []string{"a", "B", "_", ".", "-", "$", " ", "订", "客", "0", "`"}
	name := func() string {
		var b strings.Builder
		for n := rng.Intn(5); n >= 0; n-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	for i := 0; i < 200000; i++ {
		checkKeyPair(t, name(), name(), name(), name())
	}
	long := strings.Repeat("订", 80)
	checkKeyPair(t, "shop", long, "shop", long+"x")
}

func FuzzTableKeyInjective(f *testing.F) {
	f.Add("a_b", "c", "a", "b_c")
	f.Add("shop", "订单", "shop", "客户")
	f.Add("A", "b", "a", "b")
	f.Fuzz(func(t *testing.T, db1, t1, db2, t2 string) {
		checkKeyPair(t, db1, t1, db2, t2)
	})
}

func TestSelectionKeyIsNeverATableKey(t *testing.T) {
	k := SelectionKey("tables shop.a,shop.b")
	checkKeyAlphabet(t, k)
	if strings.Contains(k, ".") || !strings.HasPrefix(k, digestPrefix) {
		t.Fatalf("selection key %q could be read as a table key", k)
	}
	if long := TableKey("shop", strings.Repeat("x", 300)); !strings.HasPrefix(long, digestPrefix) || len(long) > maxReadableKey {
		t.Fatalf("over-long table key %q", long)
	}
}
