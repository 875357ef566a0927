package doris

import (
	"errors"
	"strings"
)

// token is a lexical unit of SHOW CREATE TABLE output.
type token struct {
	kind byte   // 'w' word, 'i' backtick identifier, 's' string, else the punctuation byte
	text string // unquoted text for 'i' and 's'
}

// scanDDL splits DDL text into words, quoted identifiers, strings and single
// punctuation bytes. It runs in linear time and never fails on odd bytes; an
// unterminated quote is an error.
func scanDDL(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			i = skipLine(s, i)
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, errors.New("unterminated comment")
			}
			i += end + 4
		case c == '`' || c == '"' || c == '\'':
			text, next, err := scanQuoted(s, i)
			if err != nil {
				return nil, err
			}
			kind := byte('s')
			if c == '`' {
				kind = 'i'
			}
			toks = append(toks, token{kind: kind, text: text})
			i = next
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, token{kind: 'w', text: s[i:j]})
			i = j
		default:
			toks = append(toks, token{kind: c, text: string(c)})
			i++
		}
	}
	return toks, nil
}

func skipLine(s string, i int) int {
	if end := strings.IndexByte(s[i:], '\n'); end >= 0 {
		return i + end + 1
	}
	return len(s)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c >= 0x80 ||
		(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// scanQuoted reads the quoted text starting at s[i]. A doubled quote stands
// for itself; inside strings a backslash escapes the next byte.
func scanQuoted(s string, i int) (string, int, error) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\\' && q != '`' && j+1 < len(s):
			b.WriteByte(unescapeByte(s[j+1]))
			j++
		case c == q && j+1 < len(s) && s[j+1] == q:
			b.WriteByte(q)
			j++
		case c == q:
			return b.String(), j + 1, nil
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unterminated quoted text")
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

// matchClose returns the index of the token closing the group opened at
// toks[open], or -1. With angles, <> nest like parentheses (column types).
func matchClose(toks []token, open int, angles bool) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch k := toks[i].kind; {
		case k == '(' || (angles && k == '<'):
			depth++
		case k == ')' || (angles && k == '>'):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTopLevel splits toks on commas outside any group.
func splitTopLevel(toks []token) [][]token {
	var parts [][]token
	depth, start := 0, 0
	for i, t := range toks {
		switch t.kind {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, toks[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, toks[start:])
}

func isWord(t token, word string) bool {
	return t.kind == 'w' && strings.EqualFold(t.text, word)
}
