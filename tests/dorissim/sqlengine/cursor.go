package sqlengine

import "strings"

// cursor walks the significant tokens of one statement.
type cursor struct {
	src  string
	toks []token
	i    int
}

func newCursor(src string) (*cursor, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	return &cursor{src: src, toks: significant(toks)}, nil
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

func (c *cursor) peek(n int) token {
	if c.i+n < len(c.toks) {
		return c.toks[c.i+n]
	}
	return token{kind: tkSpace}
}

// accept consumes the given words (case-insensitive) if they come next.
func (c *cursor) accept(words ...string) bool {
	for k, w := range words {
		if !isWord(c.peek(k), w) {
			return false
		}
	}
	c.i += len(words)
	return true
}

func (c *cursor) acceptPunct(p string) bool {
	if isPunct(c.peek(0), p) {
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
	return identValue(t), true
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
	if t.kind != tkString {
		return "", false
	}
	c.i++
	return stringValue(t), true
}

// rest returns the source text from the current token on.
func (c *cursor) rest() string {
	if c.done() {
		return ""
	}
	return strings.TrimSpace(c.src[c.toks[c.i].start:])
}

func (c *cursor) near() string {
	if c.done() {
		return "end of statement"
	}
	return "'" + c.rest() + "'"
}
