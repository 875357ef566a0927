package storage

import (
	"fmt"
	"strings"
)

// Kind is the Doris type family of a column.
type Kind int

// Kinds start at 1 so that a zero Type is recognisably invalid.
const (
	Boolean Kind = iota + 1
	TinyInt
	SmallInt
	Int
	BigInt
	LargeInt
	Float
	Double
	Decimal
	Date
	DateTime
	Char
	Varchar
	String
	JSON
	Array
	Map
	Struct
)

// Limits Doris applies to type parameters.
const (
	maxDecimalPrecision = 76
	maxVarcharLength    = 65533
	maxCharLength       = 255
	defaultVarcharLen   = 65533
)

// Type is a Doris column type.
type Type struct {
	Kind      Kind
	Precision int     // DECIMAL p
	Scale     int     // DECIMAL s; DATETIME fractional digits p (0-6)
	Length    int     // CHAR(n)/VARCHAR(n)
	Elem      *Type   // ARRAY
	Key       *Type   // MAP
	Value     *Type   // MAP
	Fields    []Field // STRUCT
}

// Field is one STRUCT member.
type Field struct {
	Name string
	Type Type
}

var simpleNames = map[Kind]string{
	Boolean: "BOOLEAN", TinyInt: "TINYINT", SmallInt: "SMALLINT", Int: "INT", BigInt: "BIGINT",
	LargeInt: "LARGEINT", Float: "FLOAT", Double: "DOUBLE", Date: "DATE", String: "STRING", JSON: "JSON",
}

// String returns the Doris DDL spelling, e.g. DECIMAL(10,2) or MAP<STRING,INT>.
func (t Type) String() string {
	if n, ok := simpleNames[t.Kind]; ok {
		return n
	}
	switch t.Kind {
	case Decimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case DateTime:
		if t.Scale == 0 {
			return "DATETIME"
		}
		return fmt.Sprintf("DATETIME(%d)", t.Scale)
	case Char:
		return fmt.Sprintf("CHAR(%d)", t.Length)
	case Varchar:
		return fmt.Sprintf("VARCHAR(%d)", t.Length)
	case Array:
		return "ARRAY<" + typeOrUnknown(t.Elem) + ">"
	case Map:
		return "MAP<" + typeOrUnknown(t.Key) + "," + typeOrUnknown(t.Value) + ">"
	case Struct:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.Name + ":" + f.Type.String()
		}
		return "STRUCT<" + strings.Join(parts, ",") + ">"
	}
	return fmt.Sprintf("UNKNOWN(%d)", int(t.Kind))
}

func typeOrUnknown(t *Type) string {
	if t == nil {
		return "UNKNOWN"
	}
	return t.String()
}

// SchemaName returns the type name the FE's _schema endpoint reports
// (doris-facts §1.4): decimals by storage width, v2 date types.
func (t Type) SchemaName() string {
	switch t.Kind {
	case Decimal:
		switch {
		case t.Precision <= 9:
			return "DECIMAL32"
		case t.Precision <= 18:
			return "DECIMAL64"
		case t.Precision <= 38:
			return "DECIMAL128"
		default:
			return "DECIMAL256"
		}
	case Date:
		return "DATEV2"
	case DateTime:
		return "DATETIMEV2"
	case Char:
		return "CHAR"
	case Varchar:
		return "VARCHAR"
	case Array:
		return "ARRAY"
	case Map:
		return "MAP"
	case Struct:
		return "STRUCT"
	}
	if n, ok := simpleNames[t.Kind]; ok {
		return n
	}
	return "UNKNOWN"
}

// IsComplex reports whether the type is ARRAY, MAP or STRUCT.
func (t Type) IsComplex() bool { return t.Kind == Array || t.Kind == Map || t.Kind == Struct }

// ParseType parses a Doris type name such as "DECIMAL(10, 2)" or
// "ARRAY<STRUCT<a:INT,b:VARCHAR(8)>>".
func ParseType(s string) (Type, error) {
	p := &typeParser{src: s}
	t, err := p.parse()
	if err != nil {
		return Type{}, fmt.Errorf("parse type %q: %w", s, err)
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return Type{}, fmt.Errorf("parse type %q: unexpected %q", s, p.src[p.pos:])
	}
	return t, nil
}
