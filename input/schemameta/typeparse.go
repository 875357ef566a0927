package schemameta

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// dorisType is a column type as SHOW CREATE TABLE prints it, parsed: a name
// with optional numeric arguments, or a nested type with its children.
type dorisType struct {
	name   string      // upper case: INT, DECIMAL, DATETIMEV2, ARRAY, MAP, STRUCT, ...
	args   []int       // (p), (p,s)
	elems  []dorisType // ARRAY: 1; MAP: key, value; STRUCT: one per field
	fields []string    // STRUCT field names
	// notNull is set when a nested element, value or field says NOT NULL.
	notNull bool
}

// maxTypeDepth bounds nesting so hostile input cannot exhaust the stack.
const maxTypeDepth = 64

// parseType parses type text such as decimal(10,2), array<varchar(8)>,
// map<string,array<int>> or struct<a:int,`b c`:text COMMENT 'x'>.
func parseType(text string) (dorisType, error) {
	toks, err := lexType(text)
	if err != nil {
		return dorisType{}, err
	}
	p := &typeParser{toks: toks}
	t, err := p.typ(0)
	if err != nil {
		return dorisType{}, err
	}
	if !p.done() {
		return dorisType{}, fmt.Errorf("unexpected %q after the type", p.peek().text)
	}
	return t, nil
}

type typeTok struct {
	kind byte // 'w' word, 'n' number, 'i' quoted identifier, 's' string, or the punctuation itself
	text string
}

func lexType(s string) ([]typeTok, error) {
	var toks []typeTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.IndexByte("()<>,:", c) >= 0:
			toks = append(toks, typeTok{kind: c, text: string(c)})
			i++
		case c == '`' || c == '\'' || c == '"':
			text, n, err := lexQuoted(s[i:], c)
			if err != nil {
				return nil, err
			}
			kind := byte('s')
			if c == '`' {
				kind = 'i'
			}
			toks = append(toks, typeTok{kind: kind, text: text})
			i += n
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			kind := byte('w')
			if c >= '0' && c <= '9' {
				kind = 'n'
			}
			toks = append(toks, typeTok{kind: kind, text: s[i:j]})
			i = j
		default:
			return nil, fmt.Errorf("unexpected character %q in type", c)
		}
	}
	return toks, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// lexQuoted reads a quoted token whose quote doubles, or is
// backslash-escaped, inside; it returns the text and the bytes consumed.
func lexQuoted(s string, q byte) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q != '`' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
			b.WriteByte(q)
		case s[i] == q:
			return b.String(), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, errors.New("unterminated quoted text in type")
}

type typeParser struct {
	toks []typeTok
	i    int
}

func (p *typeParser) done() bool { return p.i >= len(p.toks) }

func (p *typeParser) peek() typeTok {
	if p.done() {
		return typeTok{}
	}
	return p.toks[p.i]
}

func (p *typeParser) accept(kind byte) bool {
	if !p.done() && p.toks[p.i].kind == kind {
		p.i++
		return true
	}
	return false
}

func (p *typeParser) expect(kind byte) error {
	if p.accept(kind) {
		return nil
	}
	if p.done() {
		return fmt.Errorf("expected %q, got end of type", kind)
	}
	return fmt.Errorf("expected %q, got %q", kind, p.peek().text)
}

func (p *typeParser) typ(depth int) (dorisType, error) {
	if depth > maxTypeDepth {
		return dorisType{}, errors.New("type nests too deeply")
	}
	t := p.peek()
	if t.kind != 'w' {
		if p.done() {
			return dorisType{}, errors.New("expected a type name, got end of type")
		}
		return dorisType{}, fmt.Errorf("expected a type name, got %q", t.text)
	}
	p.i++
	out := dorisType{name: strings.ToUpper(t.text)}
	var err error
	switch out.name {
	case "ARRAY":
		err = p.array(&out, depth)
	case "MAP":
		err = p.mapType(&out, depth)
	case "STRUCT":
		err = p.structType(&out, depth)
	default:
		out.args, err = p.args()
	}
	return out, err
}

func (p *typeParser) args() ([]int, error) {
	if !p.accept('(') {
		return nil, nil
	}
	var args []int
	for {
		t := p.peek()
		if t.kind != 'n' {
			return nil, fmt.Errorf("expected a number in type arguments, got %q", t.text)
		}
		n, err := strconv.Atoi(t.text)
		if err != nil || n > 1<<20 {
			return nil, fmt.Errorf("type argument %q out of range", t.text)
		}
		p.i++
		args = append(args, n)
		if p.accept(')') {
			return args, nil
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
	}
}

// nested parses an element, key, value or field type with the attributes
// Doris allows after it inside <...>: [NOT] NULL and COMMENT 'text'.
func (p *typeParser) nested(depth int) (dorisType, error) {
	t, err := p.typ(depth + 1)
	if err != nil {
		return t, err
	}
	for {
		w := p.peek()
		switch {
		case w.kind == 'w' && strings.EqualFold(w.text, "NOT"):
			p.i++
			if n := p.peek(); n.kind != 'w' || !strings.EqualFold(n.text, "NULL") {
				return t, errors.New("expected NULL after NOT")
			}
			p.i++
			t.notNull = true
		case w.kind == 'w' && strings.EqualFold(w.text, "NULL"):
			p.i++
		case w.kind == 'w' && strings.EqualFold(w.text, "COMMENT"):
			p.i++
			if !p.accept('s') {
				return t, errors.New("expected a string after COMMENT")
			}
		default:
			return t, nil
		}
	}
}

func (p *typeParser) array(out *dorisType, depth int) error {
	if err := p.expect('<'); err != nil {
		return fmt.Errorf("ARRAY: %w", err)
	}
	elem, err := p.nested(depth)
	if err != nil {
		return fmt.Errorf("ARRAY element: %w", err)
	}
	out.elems = []dorisType{elem}
	return p.expect('>')
}

func (p *typeParser) mapType(out *dorisType, depth int) error {
	if err := p.expect('<'); err != nil {
		return fmt.Errorf("MAP: %w", err)
	}
	key, err := p.nested(depth)
	if err != nil {
		return fmt.Errorf("MAP key: %w", err)
	}
	if err := p.expect(','); err != nil {
		return fmt.Errorf("MAP: %w", err)
	}
	value, err := p.nested(depth)
	if err != nil {
		return fmt.Errorf("MAP value: %w", err)
	}
	out.elems = []dorisType{key, value}
	return p.expect('>')
}

func (p *typeParser) structType(out *dorisType, depth int) error {
	if err := p.expect('<'); err != nil {
		return fmt.Errorf("STRUCT: %w", err)
	}
	for {
		name := p.peek()
		if name.kind != 'w' && name.kind != 'i' {
			return fmt.Errorf("STRUCT: expected a field name, got %q", name.text)
		}
		p.i++
		if err := p.expect(':'); err != nil {
			return fmt.Errorf("STRUCT field %s: %w", name.text, err)
		}
		ft, err := p.nested(depth)
		if err != nil {
			return fmt.Errorf("STRUCT field %s: %w", name.text, err)
		}
		out.fields = append(out.fields, name.text)
		out.elems = append(out.elems, ft)
		if p.accept('>') {
			return nil
		}
		if err := p.expect(','); err != nil {
			return fmt.Errorf("STRUCT: %w", err)
		}
	}
}
