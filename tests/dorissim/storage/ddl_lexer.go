package storage

import (
	"fmt"
	"strings"
)

// tokEOF is the kind of the sentinel the DDL token stream ends with.
const tokEOF TokKind = -1

// lexDDL tokenizes a Doris DDL statement with the shared lexer, keeping the
// significant tokens and an EOF sentinel.
func lexDDL(src string) ([]Token, error) {
	toks, err := Lex(src)
	if err != nil {
		return nil, err
	}
	return append(Significant(toks), Token{Kind: tokEOF, Start: len(src), End: len(src)}), nil
}

// tokenStream is a cursor over the tokens with keyword helpers.
type tokenStream struct {
	toks []Token
	pos  int
}

func (s *tokenStream) peek() Token { return s.toks[s.pos] }

// peekAt looks n tokens ahead, stopping at the EOF sentinel.
func (s *tokenStream) peekAt(n int) Token { return s.toks[min(s.pos+n, len(s.toks)-1)] }

func (s *tokenStream) next() Token {
	t := s.toks[s.pos]
	if t.Kind != tokEOF {
		s.pos++
	}
	return t
}

func (s *tokenStream) isKeyword(kw string) bool {
	return s.peek().IsWord(kw)
}

// acceptKeywords consumes the keyword sequence if it is next.
func (s *tokenStream) acceptKeywords(kws ...string) bool {
	for i, kw := range kws {
		if !s.peekAt(i).IsWord(kw) {
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
	return t.Kind == TokPunct && t.Text() == p
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
	if t.Kind == TokWord || t.Kind == TokQuotedIdent {
		s.pos++
		return t.Text(), nil
	}
	return "", s.errorf("expected an identifier")
}

func (s *tokenStream) stringLit() (string, error) {
	t := s.peek()
	if t.Kind == TokString {
		s.pos++
		return t.Text(), nil
	}
	return "", s.errorf("expected a quoted string")
}

func (s *tokenStream) errorf(format string, args ...any) error {
	t := s.peek()
	near := t.Text()
	if t.Kind == tokEOF {
		near = "end of input"
	}
	return fmt.Errorf("Syntax error in CREATE TABLE near '%s' (offset %d): %s", near, t.Start, fmt.Sprintf(format, args...))
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
		case t.Kind == tokEOF:
			return s.errorf("unbalanced parentheses")
		case t.Kind == TokPunct && t.Text() == "(":
			depth++
		case t.Kind == TokPunct && t.Text() == ")":
			depth--
		}
	}
	return nil
}
