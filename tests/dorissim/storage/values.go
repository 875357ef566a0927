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

// MapValue is the normalized value of a MAP column: parallel key/value slices
// in insertion order.
type MapValue struct{ Keys, Values []any }

var (
	minLargeInt = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	maxLargeInt = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
)

const (
	dateLayout     = "2006-01-02"
	datetimeLayout = "2006-01-02 15:04:05"
)

// ParseValue converts a text value, as written in a stream load or an SQL
// literal, into the normalized Go value for t (contracts §1).
func ParseValue(t Type, s string) (any, error) {
	switch t.Kind {
	case Boolean:
		return parseBool(s)
	case TinyInt, SmallInt, Int, BigInt:
		return parseInt(t, strings.TrimSpace(s))
	case LargeInt:
		return parseLargeInt(strings.TrimSpace(s))
	case Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		if err != nil {
			return nil, fmt.Errorf("invalid FLOAT value %q", s)
		}
		return float32(f), nil
	case Double:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("invalid DOUBLE value %q", s)
		}
		return f, nil
	case Decimal:
		d, err := decimal.NewFromString(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("invalid %s value %q", t, s)
		}
		return fitDecimal(t, d)
	case Date:
		return parseDate(strings.TrimSpace(s))
	case DateTime:
		return parseDateTime(t, strings.TrimSpace(s))
	case Char, Varchar, String:
		return checkString(t, s)
	case JSON:
		return compactJSON(s)
	case Array, Map, Struct:
		return parseComplex(t, s)
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

func parseBool(s string) (any, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return nil, fmt.Errorf("invalid BOOLEAN value %q", s)
}

func intBits(k Kind) int {
	switch k {
	case TinyInt:
		return 8
	case SmallInt:
		return 16
	case Int:
		return 32
	}
	return 64
}

func parseInt(t Type, s string) (any, error) {
	n, err := strconv.ParseInt(s, 10, intBits(t.Kind))
	if err != nil {
		return nil, fmt.Errorf("invalid %s value %q", t, s)
	}
	return sizedInt(t.Kind, n), nil
}

func sizedInt(k Kind, n int64) any {
	switch k {
	case TinyInt:
		return int8(n)
	case SmallInt:
		return int16(n)
	case Int:
		return int32(n)
	}
	return n
}

func parseLargeInt(s string) (any, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("invalid LARGEINT value %q", s)
	}
	return checkLargeInt(n)
}

func checkLargeInt(n *big.Int) (any, error) {
	if n.Cmp(minLargeInt) < 0 || n.Cmp(maxLargeInt) > 0 {
		return nil, fmt.Errorf("LARGEINT value %s out of range", n)
	}
	return n, nil
}

// fitDecimal rounds to the column scale (half away from zero, as Doris does)
// and rejects values whose integer part does not fit the precision.
func fitDecimal(t Type, d decimal.Decimal) (any, error) {
	r := d.Round(int32(t.Scale))
	limit := decimal.New(1, int32(t.Precision-t.Scale))
	if r.Abs().Cmp(limit) >= 0 {
		return nil, fmt.Errorf("Arithmetic overflow, convert failed from %s, expected data is [-%s, %s]",
			d.String(), maxDecimalText(t), maxDecimalText(t))
	}
	return r, nil
}

func maxDecimalText(t Type) string {
	s := strings.Repeat("9", t.Precision-t.Scale)
	if s == "" {
		s = "0"
	}
	if t.Scale > 0 {
		s += "." + strings.Repeat("9", t.Scale)
	}
	return s
}

func parseDate(s string) (any, error) {
	for _, layout := range []string{dateLayout, datetimeLayout, "2006-01-02T15:04:05", "20060102"} {
		if ts, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return time.Date(ts.Year(), ts.Month(), ts.Day(), 0, 0, 0, 0, time.UTC), nil
		}
	}
	if ts, err := parseFractional(s); err == nil {
		return time.Date(ts.Year(), ts.Month(), ts.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	return nil, fmt.Errorf("invalid DATE value %q", s)
}

func parseFractional(s string) (time.Time, error) {
	s = strings.Replace(s, "T", " ", 1)
	return time.ParseInLocation("2006-01-02 15:04:05.999999999", s, time.UTC)
}

func parseDateTime(t Type, s string) (any, error) {
	ts, err := parseFractional(s)
	if err != nil {
		ts, err = time.ParseInLocation(dateLayout, s, time.UTC)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid %s value %q", t, s)
	}
	return truncateDateTime(ts, t.Scale), nil
}

func truncateDateTime(ts time.Time, scale int) time.Time {
	unit := time.Duration(math.Pow10(9 - scale))
	return ts.UTC().Truncate(unit)
}

func checkString(t Type, s string) (any, error) {
	if (t.Kind == Char || t.Kind == Varchar) && len(s) > t.Length {
		return nil, fmt.Errorf("the length of input string is too long than schema. input: %d, schema: %d", len(s), t.Length)
	}
	return s, nil
}
