package storage

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// typeParser is a recursive-descent parser over one type string; nested
// types need it because ARRAY/MAP/STRUCT arguments contain commas.
type typeParser struct {
	src string
	pos int
}

func (p *typeParser) skipSpace() {
	for p.pos < len(p.src) && unicode.IsSpace(rune(p.src[p.pos])) {
		p.pos++
	}
}

func (p *typeParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *typeParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("expected %q at offset %d", c, p.pos)
	}
	p.pos++
	return nil
}

func (p *typeParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

// fieldName accepts a plain or backtick-quoted STRUCT field name.
func (p *typeParser) fieldName() (string, error) {
	if p.peek() == '`' {
		p.pos++
		end := strings.IndexByte(p.src[p.pos:], '`')
		if end < 0 {
			return "", fmt.Errorf("unterminated quoted field name")
		}
		name := p.src[p.pos : p.pos+end]
		p.pos += end + 1
		return name, nil
	}
	name := p.word()
	if name == "" {
		return "", fmt.Errorf("expected field name at offset %d", p.pos)
	}
	return name, nil
}

// intArgs parses an optional "(a[, b])" list.
func (p *typeParser) intArgs() ([]int, error) {
	if p.peek() != '(' {
		return nil, nil
	}
	p.pos++
	var out []int
	for {
		w := p.word()
		n, err := strconv.Atoi(w)
		if err != nil {
			return nil, fmt.Errorf("invalid type argument %q", w)
		}
		out = append(out, n)
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return out, nil
		default:
			return nil, fmt.Errorf("expected ',' or ')' at offset %d", p.pos)
		}
	}
}

var simpleKinds = map[string]Kind{
	"BOOLEAN": Boolean, "BOOL": Boolean, "TINYINT": TinyInt, "SMALLINT": SmallInt, "INT": Int,
	"INTEGER": Int, "BIGINT": BigInt, "LARGEINT": LargeInt, "FLOAT": Float, "DOUBLE": Double,
	"STRING": String, "TEXT": String, "JSON": JSON, "JSONB": JSON, "DATE": Date, "DATEV2": Date,
}

func (p *typeParser) parse() (Type, error) {
	name := strings.ToUpper(p.word())
	if name == "" {
		return Type{}, fmt.Errorf("expected a type name at offset %d", p.pos)
	}
	if k, ok := simpleKinds[name]; ok {
		// Doris tolerates display widths such as INT(11).
		if _, err := p.intArgs(); err != nil {
			return Type{}, err
		}
		return Type{Kind: k}, nil
	}
	switch name {
	case "DECIMAL", "DECIMALV3", "DECIMALV2", "NUMERIC":
		return p.decimal()
	case "DATETIME", "DATETIMEV2":
		return p.datetime()
	case "CHAR", "VARCHAR":
		return p.charType(name)
	case "ARRAY":
		return p.array()
	case "MAP":
		return p.mapType()
	case "STRUCT":
		return p.structType()
	}
	return Type{}, fmt.Errorf("unsupported type %s", name)
}

func (p *typeParser) decimal() (Type, error) {
	args, err := p.intArgs()
	if err != nil {
		return Type{}, err
	}
	t := Type{Kind: Decimal, Precision: 9}
	switch len(args) {
	case 0:
	case 1:
		t.Precision = args[0]
	case 2:
		t.Precision, t.Scale = args[0], args[1]
	default:
		return Type{}, fmt.Errorf("DECIMAL takes at most 2 arguments")
	}
	if t.Precision < 1 || t.Precision > maxDecimalPrecision {
		return Type{}, fmt.Errorf("Decimal precision must be between 1 and %d, got %d", maxDecimalPrecision, t.Precision)
	}
	if t.Scale < 0 || t.Scale > t.Precision {
		return Type{}, fmt.Errorf("Decimal scale %d must be between 0 and precision %d", t.Scale, t.Precision)
	}
	return t, nil
}

func (p *typeParser) datetime() (Type, error) {
	args, err := p.intArgs()
	if err != nil {
		return Type{}, err
	}
	t := Type{Kind: DateTime}
	if len(args) > 1 {
		return Type{}, fmt.Errorf("DATETIME takes at most 1 argument")
	}
	if len(args) == 1 {
		t.Scale = args[0]
	}
	if t.Scale < 0 || t.Scale > 6 {
		return Type{}, fmt.Errorf("Scale of Datetime/Time must between 0 and 6. Scale was set to: %d", t.Scale)
	}
	return t, nil
}

func (p *typeParser) charType(name string) (Type, error) {
	args, err := p.intArgs()
	if err != nil {
		return Type{}, err
	}
	if len(args) > 1 {
		return Type{}, fmt.Errorf("%s takes at most 1 argument", name)
	}
	if name == "CHAR" {
		t := Type{Kind: Char, Length: 1}
		if len(args) == 1 {
			t.Length = args[0]
		}
		if t.Length < 1 || t.Length > maxCharLength {
			return Type{}, fmt.Errorf("Char size must between 1 and %d. Size was set to: %d", maxCharLength, t.Length)
		}
		return t, nil
	}
	t := Type{Kind: Varchar, Length: defaultVarcharLen}
	if len(args) == 1 {
		t.Length = args[0]
	}
	if t.Length < 1 || t.Length > maxVarcharLength {
		return Type{}, fmt.Errorf("Varchar size must between 1 and %d. Size was set to: %d", maxVarcharLength, t.Length)
	}
	return t, nil
}

func (p *typeParser) array() (Type, error) {
	if err := p.expect('<'); err != nil {
		return Type{}, err
	}
	elem, err := p.parse()
	if err != nil {
		return Type{}, err
	}
	if err := p.expect('>'); err != nil {
		return Type{}, err
	}
	return Type{Kind: Array, Elem: &elem}, nil
}

func (p *typeParser) mapType() (Type, error) {
	if err := p.expect('<'); err != nil {
		return Type{}, err
	}
	k, err := p.parse()
	if err != nil {
		return Type{}, err
	}
	if err := p.expect(','); err != nil {
		return Type{}, err
	}
	v, err := p.parse()
	if err != nil {
		return Type{}, err
	}
	if err := p.expect('>'); err != nil {
		return Type{}, err
	}
	return Type{Kind: Map, Key: &k, Value: &v}, nil
}

func (p *typeParser) structType() (Type, error) {
	if err := p.expect('<'); err != nil {
		return Type{}, err
	}
	t := Type{Kind: Struct}
	for {
		name, err := p.fieldName()
		if err != nil {
			return Type{}, err
		}
		if err := p.expect(':'); err != nil {
			return Type{}, err
		}
		ft, err := p.parse()
		if err != nil {
			return Type{}, err
		}
		t.Fields = append(t.Fields, Field{Name: name, Type: ft})
		switch p.peek() {
		case ',':
			p.pos++
		case '>':
			p.pos++
			return t, nil
		default:
			return Type{}, fmt.Errorf("expected ',' or '>' in STRUCT at offset %d", p.pos)
		}
	}
}
