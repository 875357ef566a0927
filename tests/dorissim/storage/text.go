package storage

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// FormatValue renders a normalized value in Doris's text form, the form the
// MySQL protocol and the FE's statement API show: decimals keep their
// scale, DATETIME(p) has exactly p fractional digits, floats print as the
// BE's FastFloatToBuffer/FastDoubleToBuffer do, collections as the BE's
// serdes write them (see writeNested). nil renders as "NULL"; a value whose
// type is unknown (Kind 0, e.g. a computed column) renders by its Go type.
func FormatValue(t Type, v any) string {
	if v == nil {
		return "NULL"
	}
	switch t.Kind {
	case Boolean:
		if b, ok := v.(bool); ok && b {
			return "1"
		}
		return "0"
	case Decimal:
		if d, ok := v.(decimal.Decimal); ok {
			return d.StringFixed(int32(t.Scale))
		}
	case Date:
		if ts, ok := v.(time.Time); ok {
			return ts.Format(dateLayout)
		}
	case DateTime:
		if ts, ok := v.(time.Time); ok {
			return formatDateTime(ts, t.Scale)
		}
	case Array, Map, Struct:
		var sb strings.Builder
		writeNested(&sb, t, v)
		return sb.String()
	}
	return untypedText(v)
}

func formatDateTime(ts time.Time, scale int) string {
	if scale <= 0 {
		return ts.Format(datetimeLayout)
	}
	return ts.Format(datetimeLayout + "." + strings.Repeat("0", min(scale, 6)))
}

// untypedText renders a scalar by its Go type.
func untypedText(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "1"
		}
		return "0"
	case float32:
		return formatFloat(float64(x), 32)
	case float64:
		return formatFloat(x, 64)
	case *big.Int:
		return x.String()
	case decimal.Decimal:
		if x.Exponent() < 0 {
			return x.StringFixed(-x.Exponent())
		}
		return x.String()
	case time.Time:
		if x.Nanosecond() == 0 {
			return x.Format(datetimeLayout)
		}
		return x.Format(datetimeLayout + ".000000")
	}
	return fmt.Sprint(v)
}

// formatFloat is the BE's FastDoubleToBuffer (FastFloatToBuffer for
// FLOAT): printf "%.15g" ("%.6g"), or "%.17g" ("%.9g") when the short form
// does not read back as the same value. So 123456789 stays 123456789 and
// 1e20 prints as 1e+20; infinities and NaN print as printf does.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	short, long := 15, 17
	if bits == 32 {
		short, long = 6, 9
	}
	s := strconv.FormatFloat(f, 'g', short, bits)
	if back, err := strconv.ParseFloat(s, bits); err != nil || back != f {
		s = strconv.FormatFloat(f, 'g', long, bits)
	}
	return s
}

// writeNested writes a value inside ARRAY/MAP/STRUCT as the BE's serdes
// write it to the MySQL protocol (DataTypeArraySerDe / DataTypeMapSerDe /
// DataTypeStructSerDe::write_column_to_mysql with the result writer's
// options: collection delimiter ", ", map key delimiter ':', null "null",
// nested_string_wrapper '"'). Strings, dates and datetimes, and struct field
// names, are wrapped in double quotes as they are, with nothing escaped:
// ["a"b"] is what Doris prints for ARRAY<STRING> ['a"b'].
func writeNested(sb *strings.Builder, t Type, v any) {
	if v == nil {
		sb.WriteString("null")
		return
	}
	switch t.Kind {
	case Array:
		items, _ := v.([]any)
		sb.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				sb.WriteString(", ")
			}
			writeNested(sb, elemOr(t.Elem), it)
		}
		sb.WriteByte(']')
	case Map:
		m, _ := v.(MapValue)
		sb.WriteByte('{')
		for i := range m.Keys {
			if i > 0 {
				sb.WriteString(", ")
			}
			writeNested(sb, elemOr(t.Key), m.Keys[i])
			sb.WriteByte(':')
			if i < len(m.Values) {
				writeNested(sb, elemOr(t.Value), m.Values[i])
			}
		}
		sb.WriteByte('}')
	case Struct:
		vals, _ := v.([]any)
		sb.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(`"` + f.Name + `":`)
			if i < len(vals) {
				writeNested(sb, f.Type, vals[i])
			}
		}
		sb.WriteByte('}')
	case Char, Varchar, String, Date, DateTime:
		sb.WriteString(`"` + FormatValue(t, v) + `"`)
	default:
		sb.WriteString(FormatValue(t, v))
	}
}

// elemOr is a collection's member type; a member without one is a STRING.
func elemOr(t *Type) Type {
	if t == nil {
		return Type{Kind: String}
	}
	return *t
}
