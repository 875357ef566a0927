package storage

import (
	"fmt"
	"strings"
	"unicode"
)

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokQuotedIdent
	tokString
	tokNumber
	tokPunct
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// lexDDL tokenizes the Doris CREATE TABLE dialect only: words, `idents`,
// 'strings' / "strings", numbers, punctuation, and comments.
func lexDDL(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case unicode.IsSpace(rune(c)):
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"), c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment at offset %d", i)
			}
			i += end + 4
		case c == '`' || c == '\'' || c == '"':
			text, n, err := lexQuoted(src, i)
			if err != nil {
				return nil, err
			}
			kind := tokString
			if c == '`' {
				kind = tokQuotedIdent
			}
			out = append(out, token{kind: kind, text: text, pos: i})
			i = n
		case isWordByte(c):
			start := i
			for i < len(src) && isWordByte(src[i]) {
				i++
			}
			kind := tokWord
			if unicode.IsDigit(rune(src[start])) {
				kind = tokNumber
			}
			out = append(out, token{kind: kind, text: src[start:i], pos: start})
		default:
			out = append(out, token{kind: tokPunct, text: string(c), pos: i})
			i++
		}
	}
	return append(out, token{kind: tokEOF, pos: len(src)}), nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
}

// lexQuoted reads a quoted token starting at src[i]; a doubled quote or a
// backslash escapes the quote character.
func lexQuoted(src string, i int) (string, int, error) {
	q := src[i]
	var sb strings.Builder
	j := i + 1
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\\' && q != '`' && j+1 < len(src):
			sb.WriteByte(unescape(src[j+1]))
			j += 2
		case c == q && j+1 < len(src) && src[j+1] == q:
			sb.WriteByte(q)
			j += 2
		case c == q:
			return sb.String(), j + 1, nil
		default:
			sb.WriteByte(c)
			j++
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted text at offset %d", i)
}

// tokenStream is a cursor over the tokens with keyword helpers.
type tokenStream struct {
	toks []token
	pos  int
}

func (s *tokenStream) peek() token { return s.toks[s.pos] }

func (s *tokenStream) next() token {
	t := s.toks[s.pos]
	if t.kind != tokEOF {
		s.pos++
	}
	return t
}

func (s *tokenStream) isKeyword(kw string) bool {
	t := s.peek()
	return t.kind == tokWord && strings.EqualFold(t.text, kw)
}

// acceptKeywords consumes the keyword sequence if it is next.
func (s *tokenStream) acceptKeywords(kws ...string) bool {
	for i, kw := range kws {
		t := s.toks[min(s.pos+i, len(s.toks)-1)]
		if t.kind != tokWord || !strings.EqualFold(t.text, kw) {
			return false
		}
	}
	s.pos += len(kws)
	return true
}

func (s *tokenStream) expectKeywords(kws ...string) error {
	if !s.acceptKeywords(kws...) {
		return s.errorf("expected %s", strings.Join(kws, " "))
	}
	return nil
}

func (s *tokenStream) isPunct(p string) bool {
	t := s.peek()
	return t.kind == tokPunct && t.text == p
}

func (s *tokenStream) acceptPunct(p string) bool {
	if s.isPunct(p) {
		s.pos++
		return true
	}
	return false
}

func (s *tokenStream) expectPunct(p string) error {
	if !s.acceptPunct(p) {
		return s.errorf("expected '%s'", p)
	}
	return nil
}

func (s *tokenStream) ident() (string, error) {
	t := s.peek()
	if t.kind == tokWord || t.kind == tokQuotedIdent {
		s.pos++
		return t.text, nil
	}
	return "", s.errorf("expected an identifier")
}

func (s *tokenStream) stringLit() (string, error) {
	t := s.peek()
	if t.kind == tokString {
		s.pos++
		return t.text, nil
	}
	return "", s.errorf("expected a quoted string")
}

func (s *tokenStream) errorf(format string, args ...any) error {
	t := s.peek()
	near := t.text
	if t.kind == tokEOF {
		near = "end of input"
	}
	return fmt.Errorf("Syntax error in CREATE TABLE near '%s' (offset %d): %s", near, t.pos, fmt.Sprintf(format, args...))
}

// skipBalanced skips a parenthesised group starting at '('.
func (s *tokenStream) skipBalanced() error {
	if err := s.expectPunct("("); err != nil {
		return err
	}
	depth := 1
	for depth > 0 {
		t := s.next()
		switch {
		case t.kind == tokEOF:
			return s.errorf("unbalanced parentheses")
		case t.kind == tokPunct && t.text == "(":
			depth++
		case t.kind == tokPunct && t.text == ")":
			depth--
		}
	}
	return nil
}
