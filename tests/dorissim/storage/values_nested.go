package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// litNode is one parsed element of a Doris collection literal such as
// [1, 2], {"k": 1} or {1, "x"}.
type litNode struct {
	kind   byte // '[' list, '{' object, 's' quoted string, 'b' bare token, 'n' null
	text   string
	items  []litNode
	keys   []litNode // object keys; nil entries when positional
	keyed  bool
	quoted bool
}

type litParser struct {
	src string
	pos int
}

func parseComplex(t Type, s string) (any, error) {
	p := &litParser{src: s}
	n, err := p.value()
	if err != nil {
		return nil, fmt.Errorf("invalid %s value %q: %w", t, s, err)
	}
	p.skip()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("invalid %s value %q: trailing %q", t, s, p.src[p.pos:])
	}
	return convertNode(t, n)
}

func compactJSON(s string) (any, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, fmt.Errorf("invalid JSON value %q: %w", s, err)
	}
	return buf.String(), nil
}

func (p *litParser) skip() {
	for p.pos < len(p.src) && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.pos++
	}
}

func (p *litParser) value() (litNode, error) {
	p.skip()
	if p.pos >= len(p.src) {
		return litNode{}, fmt.Errorf("unexpected end")
	}
	switch c := p.src[p.pos]; c {
	case '[', '{':
		return p.collection(c)
	case '"', '\'':
		s, err := p.quoted(c)
		return litNode{kind: 's', text: s, quoted: true}, err
	}
	start := p.pos
	for p.pos < len(p.src) && !strings.ContainsRune(",:]}", rune(p.src[p.pos])) {
		p.pos++
	}
	tok := strings.TrimSpace(p.src[start:p.pos])
	if strings.EqualFold(tok, "null") {
		return litNode{kind: 'n'}, nil
	}
	return litNode{kind: 'b', text: tok}, nil
}

func (p *litParser) quoted(q byte) (string, error) {
	p.pos++
	var sb strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\\' && p.pos+1 < len(p.src):
			p.pos++
			sb.WriteByte(unescape(p.src[p.pos]))
		case c == q:
			p.pos++
			return sb.String(), nil
		default:
			sb.WriteByte(c)
		}
		p.pos++
	}
	return "", fmt.Errorf("unterminated string")
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

func (p *litParser) collection(open byte) (litNode, error) {
	closeCh := byte(']')
	if open == '{' {
		closeCh = '}'
	}
	n := litNode{kind: open}
	p.pos++
	p.skip()
	if p.pos < len(p.src) && p.src[p.pos] == closeCh {
		p.pos++
		return n, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return n, err
		}
		p.skip()
		if open == '{' && p.pos < len(p.src) && p.src[p.pos] == ':' {
			p.pos++
			val, err := p.value()
			if err != nil {
				return n, err
			}
			n.keys = append(n.keys, v)
			n.keyed = true
			v = val
			p.skip()
		} else {
			n.keys = append(n.keys, litNode{kind: 'n'})
		}
		n.items = append(n.items, v)
		if p.pos >= len(p.src) {
			return n, fmt.Errorf("unterminated collection")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case closeCh:
			p.pos++
			return n, nil
		default:
			return n, fmt.Errorf("unexpected %q at offset %d", p.src[p.pos], p.pos)
		}
	}
}

func convertNode(t Type, n litNode) (any, error) {
	if n.kind == 'n' {
		return nil, nil
	}
	switch t.Kind {
	case Array:
		if n.kind != '[' {
			return nil, fmt.Errorf("expected an array for %s", t)
		}
		out := make([]any, len(n.items))
		for i, it := range n.items {
			v, err := convertNode(*t.Elem, it)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case Map:
		return convertMap(t, n)
	case Struct:
		return convertStruct(t, n)
	}
	if n.kind == '[' || n.kind == '{' {
		return nil, fmt.Errorf("unexpected collection for %s", t)
	}
	return ParseValue(t, n.text)
}

func convertMap(t Type, n litNode) (any, error) {
	if n.kind != '{' || (len(n.items) > 0 && !n.keyed) {
		return nil, fmt.Errorf("expected a map for %s", t)
	}
	m := MapValue{Keys: make([]any, len(n.items)), Values: make([]any, len(n.items))}
	for i := range n.items {
		k, err := convertNode(*t.Key, n.keys[i])
		if err != nil {
			return nil, err
		}
		v, err := convertNode(*t.Value, n.items[i])
		if err != nil {
			return nil, err
		}
		m.Keys[i], m.Values[i] = k, v
	}
	return m, nil
}

func convertStruct(t Type, n litNode) (any, error) {
	if n.kind != '{' {
		return nil, fmt.Errorf("expected a struct for %s", t)
	}
	out := make([]any, len(t.Fields))
	if !n.keyed {
		if len(n.items) != len(t.Fields) {
			return nil, fmt.Errorf("%s needs %d fields, got %d", t, len(t.Fields), len(n.items))
		}
		for i, f := range t.Fields {
			v, err := convertNode(f.Type, n.items[i])
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	for i, k := range n.keys {
		idx := fieldIndex(t.Fields, k.text)
		if idx < 0 {
			return nil, fmt.Errorf("%s has no field %q", t, k.text)
		}
		v, err := convertNode(t.Fields[idx].Type, n.items[i])
		if err != nil {
			return nil, err
		}
		out[idx] = v
	}
	return out, nil
}

func fieldIndex(fields []Field, name string) int {
	for i, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// formatComplex renders ARRAY/MAP/STRUCT the way Doris prints them, with
// string-like members double-quoted.
func coerceComplex(t Type, v any) (any, error) {
	switch t.Kind {
	case Array:
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("cannot convert %T to %s", v, t)
		}
		return coerceList(items, func(int) Type { return *t.Elem })
	case Struct:
		items, ok := v.([]any)
		if !ok || len(items) != len(t.Fields) {
			return nil, fmt.Errorf("cannot convert %T to %s", v, t)
		}
		return coerceList(items, func(i int) Type { return t.Fields[i].Type })
	}
	m, ok := v.(MapValue)
	if !ok || len(m.Keys) != len(m.Values) {
		return nil, fmt.Errorf("cannot convert %T to %s", v, t)
	}
	keys, err := coerceList(m.Keys, func(int) Type { return *t.Key })
	if err != nil {
		return nil, err
	}
	vals, err := coerceList(m.Values, func(int) Type { return *t.Value })
	if err != nil {
		return nil, err
	}
	return MapValue{Keys: keys, Values: vals}, nil
}

func coerceList(items []any, typeAt func(int) Type) ([]any, error) {
	out := make([]any, len(items))
	for i, it := range items {
		v, err := Coerce(typeAt(i), it)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
