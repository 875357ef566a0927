package doris

import (
	"fmt"
	"strings"
)

// maxFilterLen bounds a configured filter: it is sent with every query.
const maxFilterLen = 64 << 10

// clauseWords end a WHERE condition and start another part of a SELECT (or
// another SELECT). At the top level of a filter they would change the shape
// of the query the filter is pasted into, so they are refused; inside
// parentheses (a subquery) they are the subquery's own business.
var clauseWords = map[string]bool{
	"UNION": true, "INTERSECT": true, "EXCEPT": true, "MINUS": true,
	"ORDER": true, "GROUP": true, "HAVING": true, "LIMIT": true, "INTO": true,
	"QUALIFY": true, "WINDOW": true,
}

// ValidateFilterExpression checks that expr, configured in field, is one SQL
// boolean condition that can be pasted into a WHERE clause: no statement
// separator (;), no comment (--, #, /* */) that could hide the rest of the
// query, balanced parentheses and quotes, no NUL or other control bytes
// except whitespace, and no clause keyword (UNION, ORDER BY, LIMIT, ...)
// outside parentheses. Quoted text ('...', "...", `...`) may hold anything.
// Callers wrap the expression in parentheses when they combine it with
// their own conditions: `WHERE (<expr>)`.
//
// It is a guard against mistakes and against SQL that would read beyond the
// filtered table, not a SQL parser: Doris still rejects bad syntax.
func ValidateFilterExpression(field, expr string) error {
	if strings.TrimSpace(expr) == "" {
		return fmt.Errorf("%s: the expression is empty", field)
	}
	if len(expr) > maxFilterLen {
		return fmt.Errorf("%s: the expression is %d bytes, more than %d", field, len(expr), maxFilterLen)
	}
	depth := 0
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			_, next, err := scanQuoted(expr, i)
			if err != nil {
				return fmt.Errorf("%s: quote %c at offset %d is never closed", field, c, i)
			}
			i = next
			continue
		case c == ';':
			return fmt.Errorf("%s: statement separator ';' at offset %d is not allowed", field, i)
		case c == '#', c == '-' && strings.HasPrefix(expr[i:], "--"),
			c == '/' && strings.HasPrefix(expr[i:], "/*"), c == '*' && strings.HasPrefix(expr[i:], "*/"):
			return fmt.Errorf("%s: comment marker at offset %d is not allowed", field, i)
		case c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r', c == 0x7f:
			return fmt.Errorf("%s: control byte 0x%02x at offset %d is not allowed", field, c, i)
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return fmt.Errorf("%s: ')' at offset %d closes a parenthesis that was never opened", field, i)
			}
			depth--
		case isFilterWordByte(c):
			j := i
			for j < len(expr) && isFilterWordByte(expr[j]) {
				j++
			}
			qualified := i > 0 && expr[i-1] == '.'
			if w := strings.ToUpper(expr[i:j]); depth == 0 && !qualified && clauseWords[w] {
				return fmt.Errorf("%s: %s at offset %d would end the condition; a filter is one boolean expression", field, w, i)
			}
			i = j
			continue
		}
		i++
	}
	if depth > 0 {
		return fmt.Errorf("%s: %d parenthesis(es) never closed", field, depth)
	}
	return nil
}

// isFilterWordByte is a byte of an unquoted word. Unlike DDL words, '.'
// separates words here (t.order is the column order of t, not ORDER).
func isFilterWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
