package doris

import (
	"net"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseTimestamp(f *testing.F) {
	f.Add("2026-09-14 10:03:00")
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTimestamp(s)
		if err != nil {
			return
		}
		if ts.Format(TimestampLayout) != s || strings.ContainsAny(s, "'\\`") {
			t.Fatalf("accepted %q as %v", s, ts)
		}
	})
}

func FuzzParseTableIdentifier(f *testing.F) {
	f.Add("`my.db`.`t`")
	f.Fuzz(func(t *testing.T, s string) {
		db, tbl, err := ParseTableIdentifier(s)
		if err != nil {
			return
		}
		if db == "" || tbl == "" {
			t.Fatalf("empty part from %q", s)
		}
		db2, tbl2, err := ParseTableIdentifier(QuoteIdent(db) + "." + QuoteIdent(tbl))
		if err != nil || db2 != db || tbl2 != tbl {
			t.Fatalf("requoted %q.%q does not round-trip: %q %q %v", db, tbl, db2, tbl2, err)
		}
	})
}

func FuzzQuoteIdentRoundTrip(f *testing.F) {
	f.Add("my.db", "t`x")
	f.Fuzz(func(t *testing.T, db, tbl string) {
		if db == "" || tbl == "" {
			return
		}
		gotDB, gotTbl, err := ParseTableIdentifier(QualifiedTable(db, tbl))
		if err != nil || gotDB != db || gotTbl != tbl {
			t.Fatalf("%q.%q -> %q %q %v", db, tbl, gotDB, gotTbl, err)
		}
	})
}

func FuzzQuoteLiteralRoundTrip(f *testing.F) {
	f.Add("it's a \\ test\x00")
	f.Fuzz(func(t *testing.T, s string) {
		q := QuoteLiteral(s)
		got, rest, ok := unquoteMySQLLiteral(q)
		if !ok || rest != "" || got != s {
			t.Fatalf("%q quoted as %s reads back %q (rest %q, ok %v)", s, q, got, rest, ok)
		}
		if ValidateLiteral(s) == nil && (strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)) {
			t.Fatalf("ValidateLiteral accepted %q", s)
		}
	})
}

// unquoteMySQLLiteral reads one single-quoted literal the way MySQL and
// Doris do (backslash escapes, doubled quotes) and returns what follows it.
func unquoteMySQLLiteral(s string) (string, string, bool) {
	if !strings.HasPrefix(s, "'") {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '0' {
				b.WriteByte(0)
			} else {
				b.WriteByte(s[i])
			}
		case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\'':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

func FuzzParseFENodes(f *testing.F) {
	f.Add("h1:8030,[::1]:8030")
	f.Fuzz(func(t *testing.T, s string) {
		nodes, err := ParseFENodes(s)
		if err != nil {
			return
		}
		for _, n := range nodes {
			again, err := ParseFENodes(n)
			if err != nil || len(again) != 1 || again[0] != n {
				t.Fatalf("node %q from %q does not reparse: %v %v", n, s, again, err)
			}
		}
	})
}

func FuzzParseJDBCURL(f *testing.F) {
	f.Add("jdbc:mysql://fe1:9030/ops?connectTimeout=5000")
	f.Fuzz(func(t *testing.T, s string) {
		j, err := ParseJDBCURL(s)
		if err != nil {
			return
		}
		if j.Port < 1 || j.Port > 65535 || j.Host == "" {
			t.Fatalf("accepted %q as %+v", s, j)
		}
		if _, _, err := net.SplitHostPort(j.Addr()); err != nil {
			t.Fatalf("Addr %q: %v", j.Addr(), err)
		}
	})
}
