package doris

import (
	"strings"
	"testing"
)

func TestValidateFilterExpressionAccepts(t *testing.T) {
	for _, expr := range []string{
		"amount > 100",
		"status IN ('paid', 'shipped') AND (amount > 1 OR amount IS NULL)",
		"note = 'a;b -- c /* d */ # e'",             // separators and comment markers inside strings
		"`we;ird--col` = \"x\"\"y\" AND `a``b` = 1", // doubled quotes
		"s = 'it\\'s'", // backslash-escaped quote
		"id IN (SELECT id FROM db.t ORDER BY id LIMIT 10)", // a subquery's own clauses
		"t.order = 1 AND t.limit > 2",                      // qualified names that look like keywords
		"__DORIS_BINLOG_OP__ != 2",
		"ts >= '2026-01-01 00:00:00'\n\tAND v <> 'x'",
		"naïve = 'é'",
	} {
		if err := ValidateFilterExpression("binlog_filter", expr); err != nil {
			t.Errorf("%q rejected: %v", expr, err)
		}
	}
}

func TestValidateFilterExpressionRejects(t *testing.T) {
	cases := map[string]string{
		"":                                  "the expression is empty",
		"   \n":                             "the expression is empty",
		"a = 1; DROP TABLE t":               "statement separator ';' at offset 5",
		"a = 1 -- rest hidden":              "comment marker at offset 6",
		"a = 1 /* x */":                     "comment marker at offset 6",
		"a = 1 # x":                         "comment marker at offset 6",
		"a = 'unterminated":                 "quote ' at offset 4 is never closed",
		"`a = 1":                            "quote ` at offset 0 is never closed",
		"a = 1) OR (1 = 1":                  "')' at offset 5 closes a parenthesis that was never opened",
		"(a = 1":                            "1 parenthesis(es) never closed",
		"a = 1 UNION SELECT * FROM secret":  "UNION at offset 6 would end the condition",
		"a = 1 ORDER BY a":                  "ORDER at offset 6",
		"a = 1 limit 5":                     "LIMIT at offset 6",
		"a = 1 INTO OUTFILE 'x'":            "INTO at offset 6",
		"a = 1\x00":                         "control byte 0x00 at offset 5",
		strings.Repeat("a", maxFilterLen+1): "more than 65536",
	}
	for expr, want := range cases {
		err := ValidateFilterExpression("binlog_filter", expr)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "binlog_filter: ") {
			t.Errorf("%.40q: error %v, want one starting with the field and containing %q", expr, err, want)
		}
	}
}
