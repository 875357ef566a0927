package doris

import "testing"

// FuzzValidateFilterExpression: the validator never panics, and whatever it
// accepts, pasted into a query as WHERE (<expr>), tokenizes (by the DDL
// scanner, which knows quotes and comments independently) into one
// statement with balanced parentheses.
func FuzzValidateFilterExpression(f *testing.F) {
	for _, s := range []string{
		"amount > 100", "a = ';'", "a = 1; b", "a -- b", "`x``y` = 1", "(a", "a)", "'it\\'s'", "a UNION b",
		"id IN (SELECT 1 LIMIT 1)", "t.order = 1", "\"a\"\"b\" = '/*'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if ValidateFilterExpression("binlog_filter", expr) != nil {
			return
		}
		toks, err := scanDDL("SELECT * FROM t WHERE (" + expr + ")")
		if err != nil {
			t.Fatalf("accepted %q, but the query does not scan: %v", expr, err)
		}
		depth := 0
		for _, tok := range toks {
			switch tok.kind {
			case ';':
				t.Fatalf("accepted %q, which holds a statement separator", expr)
			case '(':
				depth++
			case ')':
				depth--
				if depth < 0 {
					t.Fatalf("accepted %q, which closes the WHERE parenthesis", expr)
				}
			}
		}
		if depth != 0 {
			t.Fatalf("accepted %q, which leaves %d parenthesis open", expr, depth)
		}
	})
}
