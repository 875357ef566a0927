package sqlengine

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// dorisText prints a normalized value the way Doris prints it over the MySQL
// protocol; complex values become JSON-like text.
func dorisText(t storage.Type, v any) string {
	var b strings.Builder
	writeDorisText(&b, t, v, false)
	return b.String()
}

func writeDorisText(b *strings.Builder, t storage.Type, v any, nested bool) {
	if v == nil {
		if nested {
			b.WriteString("null")
		}
		return
	}
	switch t.Kind {
	case storage.Array:
		items, _ := v.([]any)
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeDorisText(b, elemType(t.Elem), it, true)
		}
		b.WriteByte(']')
		return
	case storage.Map:
		mv, _ := v.(storage.MapValue)
		b.WriteByte('{')
		for i, k := range mv.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeDorisText(b, elemType(t.Key), k, true)
			b.WriteByte(':')
			if i < len(mv.Values) {
				writeDorisText(b, elemType(t.Value), mv.Values[i], true)
			}
		}
		b.WriteByte('}')
		return
	case storage.Struct:
		fields, _ := v.([]any)
		b.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(f.Name))
			b.WriteByte(':')
			if i < len(fields) {
				writeDorisText(b, f.Type, fields[i], true)
			}
		}
		b.WriteByte('}')
		return
	}
	s := scalarTextTyped(t, v)
	if nested && isQuotedKind(t.Kind) {
		s = strconv.Quote(s)
	}
	b.WriteString(s)
}

func isQuotedKind(k storage.Kind) bool {
	switch k {
	case storage.Char, storage.Varchar, storage.String, storage.Date, storage.DateTime:
		return true
	}
	return false
}

func scalarTextTyped(t storage.Type, v any) string {
	switch x := v.(type) {
	case decimal.Decimal:
		if t.Kind == storage.Decimal {
			return x.StringFixed(int32(t.Scale))
		}
	case time.Time:
		if t.Kind == storage.Date {
			return x.Format("2006-01-02")
		}
		if t.Kind == storage.DateTime {
			return formatDatetime(x, t.Scale)
		}
	}
	return scalarText(v)
}

func formatDatetime(tm time.Time, digits int) string {
	s := tm.Format("2006-01-02 15:04:05")
	if digits <= 0 {
		return s
	}
	if digits > 6 {
		digits = 6
	}
	frac := fmt.Sprintf("%09d", tm.Nanosecond())[:digits]
	return s + "." + frac
}

// scalarText prints a scalar without type information.
func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "1"
		}
		return "0"
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case *big.Int:
		return x.String()
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case decimal.Decimal:
		if x.Exponent() < 0 {
			return x.StringFixed(-x.Exponent())
		}
		return x.String()
	case time.Time:
		if x.Nanosecond() == 0 {
			return x.Format("2006-01-02 15:04:05")
		}
		return x.Format("2006-01-02 15:04:05.000000")
	default:
		return fmt.Sprint(x)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
