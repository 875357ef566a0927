package sqlengine

import (
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// cursor walks the significant tokens of one statement.
type cursor struct {
	src  string
	toks []storage.Token
	i    int
}

func newCursor(src string) (*cursor, error) {
	toks, err := storage.Lex(src)
	if err != nil {
		return nil, err
	}
	return &cursor{src: src, toks: storage.Significant(toks)}, nil
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

func (c *cursor) peek(n int) storage.Token {
	if c.i+n < len(c.toks) {
		return c.toks[c.i+n]
	}
	return storage.Token{Kind: storage.TokSpace}
}

// accept consumes the given words (case-insensitive) if they come next.
func (c *cursor) accept(words ...string) bool {
	for k, w := range words {
		if !c.peek(k).IsWord(w) {
			return false
		}
	}
	c.i += len(words)
	return true
}

func (c *cursor) acceptPunct(p string) bool {
	if c.peek(0).IsPunct(p) {
		c.i++
		return true
	}
	return false
}

// ident consumes one identifier.
func (c *cursor) ident() (string, bool) {
	t := c.peek(0)
	if !isIdentTok(t) {
		return "", false
	}
	c.i++
	return t.Ident(), true
}

// tableName consumes `tbl` or `db.tbl`.
func (c *cursor) tableName() (db, table string, ok bool) {
	first, ok := c.ident()
	if !ok {
		return "", "", false
	}
	if c.acceptPunct(".") {
		second, ok := c.ident()
		if !ok {
			return "", "", false
		}
		return first, second, true
	}
	return "", first, true
}

// stringLit consumes a string literal.
func (c *cursor) stringLit() (string, bool) {
	t := c.peek(0)
	if t.Kind != storage.TokString {
		return "", false
	}
	c.i++
	return t.Str(), true
}

// rest returns the source text from the current token on.
func (c *cursor) rest() string {
	if c.done() {
		return ""
	}
	return strings.TrimSpace(c.src[c.toks[c.i].Start:])
}

func (c *cursor) near() string {
	if c.done() {
		return "end of statement"
	}
	return "'" + c.rest() + "'"
}
