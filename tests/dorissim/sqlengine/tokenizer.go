package sqlengine

import (
	"fmt"
	"strings"
)

type tokKind int

const (
	tkSpace tokKind = iota
	tkComment
	tkWord   // bare identifier or keyword
	tkQIdent // `quoted identifier`
	tkString // 'string' or "string"
	tkNumber
	tkPunct
)

type token struct {
	kind       tokKind
	raw        string
	start, end int
}

// tokenize splits SQL into tokens, respecting quotes and comments, so that
// rewrites never touch text inside a literal or an identifier.
func tokenize(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		start := i
		kind, end, err := scanToken(s, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, token{kind: kind, raw: s[start:end], start: start, end: end})
		i = end
	}
	return toks, nil
}

func scanToken(s string, i int) (tokKind, int, error) {
	c := s[i]
	switch {
	case isSpace(c):
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		return tkSpace, j, nil
	case c == '/' && i+1 < len(s) && s[i+1] == '*':
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return 0, 0, fmt.Errorf("unterminated comment at position %d", i)
		}
		return tkComment, i + 2 + j + 2, nil
	case c == '#' || (c == '-' && strings.HasPrefix(s[i:], "-- ")) || (c == '-' && strings.HasPrefix(s[i:], "--\n")):
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return tkComment, len(s), nil
		}
		return tkComment, i + j + 1, nil
	case c == '\'' || c == '"':
		end, err := scanQuoted(s, i, c, true)
		return tkString, end, err
	case c == '`':
		end, err := scanQuoted(s, i, c, false)
		return tkQIdent, end, err
	case isDigit(c):
		j := i
		for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
			j++
		}
		return tkNumber, j, nil
	case isWordByte(c):
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		return tkWord, j, nil
	default:
		return tkPunct, i + 1, nil
	}
}

// scanQuoted finds the end of a quoted token; a doubled quote is an escaped
// quote, and in string literals a backslash escapes the next byte.
func scanQuoted(s string, i int, q byte, backslash bool) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated quoted text at position %d", i)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

// identValue returns the identifier a word or quoted-identifier token names.
func identValue(t token) string {
	if t.kind == tkQIdent {
		return strings.ReplaceAll(t.raw[1:len(t.raw)-1], "``", "`")
	}
	return t.raw
}

// stringValue decodes a string literal token.
func stringValue(t token) string {
	q := t.raw[0]
	body := t.raw[1 : len(t.raw)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == q && i+1 < len(body) && body[i+1] == q:
			b.WriteByte(q)
			i++
		case c == '\\' && i+1 < len(body):
			i++
			b.WriteByte(unescapeByte(body[i]))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func unescapeByte(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	}
	return c
}

// quoteString renders s as a single-quoted SQL literal.
func quoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// quoteIdent renders s as a backticked identifier.
func quoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// significant drops whitespace and comments.
func significant(toks []token) []token {
	out := make([]token, 0, len(toks))
	for _, t := range toks {
		if t.kind != tkSpace && t.kind != tkComment {
			out = append(out, t)
		}
	}
	return out
}

func isWord(t token, w string) bool { return t.kind == tkWord && strings.EqualFold(t.raw, w) }

func isPunct(t token, p string) bool { return t.kind == tkPunct && t.raw == p }

// stripLeadingComments removes leading whitespace and comments.
func stripLeadingComments(s string) (string, error) {
	for {
		t := strings.TrimLeft(s, " \t\r\n\f")
		if t == "" {
			return t, nil
		}
		kind, end, err := scanToken(t, 0)
		if err != nil {
			return "", err
		}
		if kind != tkComment {
			return t, nil
		}
		s = t[end:]
	}
}
