package storage

import (
	"reflect"
	"testing"
)

func significantRaw(t *testing.T, src string) []string {
	t.Helper()
	toks, err := Lex(src)
	if err != nil {
		t.Fatalf("Lex(%q): %v", src, err)
	}
	var out []string
	for _, tk := range Significant(toks) {
		out = append(out, tk.Raw)
	}
	return out
}

// Doris's SIMPLE_COMMENT (fe/fe-core/src/main/antlr4/org/apache/doris/
// nereids/DorisLexer.g4) is '--' ('\\\n' | ~[\r\n])* '\r'? '\n'?: no space
// is needed after the dashes, and a backslash before the newline continues
// the comment. The legacy sql_scanner.flex agrees on the first point
// (EndOfLineComment = "--" up to the line terminator).
func TestLexDashCommentNeedsNoSpace(t *testing.T) {
	cases := map[string][]string{
		"SELECT 1--x\nFROM t":            {"SELECT", "1", "FROM", "t"},
		"SELECT 1 --\nFROM t":            {"SELECT", "1", "FROM", "t"},
		"SELECT 1 -- a\r\nFROM t":        {"SELECT", "1", "FROM", "t"},
		"SELECT 1 --x \\\nFROM t\nWHERE": {"SELECT", "1", "WHERE"},
		"SELECT 1 --'open":               {"SELECT", "1"},
		"SELECT 1 - 1":                   {"SELECT", "1", "-", "1"},
	}
	for src, want := range cases {
		if got := significantRaw(t, src); !reflect.DeepEqual(got, want) {
			t.Errorf("Lex(%q) = %q, want %q", src, got, want)
		}
	}
}

// DorisLexer.g4's IDENTIFIER is (LETTER | DIGIT | '_')+ with LETTER covering
// [a-zA-Z$_] and ~[\u0000-\u007F\uD800-\uDBFF] plus surrogate pairs: every
// character above U+007F belongs to an identifier, letter or not, and WS is
// only [ \r\n\t]. So a byte such as 0xA0 or 0x85 (a space in Latin-1, and
// to unicode.IsSpace) is part of a word even where it starts a token: the FE
// decodes such a stray byte to U+FFFD, a LETTER. \v is no space either.
func TestLexNonASCIIIdentifiers(t *testing.T) {
	cases := map[string][]string{
		"CREATE TABLE càfé (Åge INT)":  {"CREATE", "TABLE", "càfé", "(", "Åge", "INT", ")"},
		"SELECT 订单号, a\u00a0b FROM t":  {"SELECT", "订单号", ",", "a\u00a0b", "FROM", "t"},
		"SELECT a, \xa0b, \x85 FROM t": {"SELECT", "a", ",", "\xa0b", ",", "\x85", "FROM", "t"},
		"SELECT a\vb":                  {"SELECT", "a", "\v", "b"},
	}
	for src, want := range cases {
		if got := significantRaw(t, src); !reflect.DeepEqual(got, want) {
			t.Errorf("Lex(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestLexQuotedValues(t *testing.T) {
	toks, err := Lex("`a``b` 'c''d\\n' \"e\\\"f\" 'g\\_h\\Z'")
	if err != nil {
		t.Fatal(err)
	}
	sig := Significant(toks)
	if sig[0].Ident() != "a`b" || sig[1].Str() != "c'd\n" || sig[2].Str() != `e"f` || sig[3].Str() != "g\\_h\x1a" {
		t.Fatalf("tokens = %q %q %q %q", sig[0].Ident(), sig[1].Str(), sig[2].Str(), sig[3].Str())
	}
	if got := QuoteString(`it's \_`); got != `'it''s \\_'` {
		t.Fatalf("QuoteString = %s", got)
	}
	for _, bad := range []string{"'open", "`open", "/* open"} {
		if _, err := Lex(bad); err == nil {
			t.Errorf("Lex(%q) accepted unterminated text", bad)
		}
	}
}

// The DDL parser sees the same comments and identifiers.
func TestParseCreateTableDashCommentAndUnicode(t *testing.T) {
	ct, err := ParseCreateTable("CREATE TABLE càfé (--first column\n`k` INT,\nÅge INT --age\n, \xa0x INT) DUPLICATE KEY(`k`) DISTRIBUTED BY HASH(`k`) BUCKETS 1")
	if err != nil {
		t.Fatal(err)
	}
	if ct.Def.Name != "càfé" || len(ct.Def.Columns) != 3 || ct.Def.Columns[1].Name != "Åge" || ct.Def.Columns[2].Name != "\xa0x" {
		t.Fatalf("parsed %q with columns %+v", ct.Def.Name, ct.Def.Columns)
	}
}
