package storage

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/shopspring/decimal"
)

// Coerce converts a Go value (as produced by an SQL engine or a test) into
// the normalized value for t. Strings go through ParseValue; numbers are
// range-checked; values already normalized pass through after validation.
func Coerce(t Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok {
		return ParseValue(t, s)
	}
	if b, ok := v.([]byte); ok {
		return ParseValue(t, string(b))
	}
	switch t.Kind {
	case Boolean:
		return coerceBool(v)
	case TinyInt, SmallInt, Int, BigInt:
		return coerceInt(t, v)
	case LargeInt:
		return coerceLargeInt(v)
	case Float, Double:
		return coerceFloat(t, v)
	case Decimal:
		return coerceDecimal(t, v)
	case Date, DateTime:
		return coerceTime(t, v)
	case Array, Map, Struct:
		return coerceComplex(t, v)
	}
	return ParseValue(t, fmt.Sprint(v))
}

func coerceBool(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	}
	if n, ok := asInt64(v); ok {
		return n != 0, nil
	}
	return nil, fmt.Errorf("cannot convert %T to BOOLEAN", v)
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func coerceInt(t Type, v any) (any, error) {
	n, ok := asInt64(v)
	if !ok {
		switch x := v.(type) {
		case float32, float64, decimal.Decimal, *big.Int:
			return ParseValue(t, fmt.Sprint(x))
		}
		return nil, fmt.Errorf("cannot convert %T to %s", v, t)
	}
	bits := intBits(t.Kind)
	if bits < 64 {
		lim := int64(1) << (bits - 1)
		if n < -lim || n >= lim {
			return nil, fmt.Errorf("value %d out of range for %s", n, t)
		}
	}
	return sizedInt(t.Kind, n), nil
}

func coerceLargeInt(v any) (any, error) {
	switch x := v.(type) {
	case *big.Int:
		return checkLargeInt(new(big.Int).Set(x))
	case uint64:
		return new(big.Int).SetUint64(x), nil
	case decimal.Decimal:
		return parseLargeInt(x.String())
	}
	if n, ok := asInt64(v); ok {
		return big.NewInt(n), nil
	}
	return nil, fmt.Errorf("cannot convert %T to LARGEINT", v)
}

func coerceFloat(t Type, v any) (any, error) {
	var f float64
	switch x := v.(type) {
	case float32:
		f = float64(x)
	case float64:
		f = x
	case decimal.Decimal:
		f = x.InexactFloat64()
	default:
		n, ok := asInt64(v)
		if !ok {
			return nil, fmt.Errorf("cannot convert %T to %s", v, t)
		}
		f = float64(n)
	}
	if t.Kind == Float {
		return float32(f), nil
	}
	return f, nil
}

func coerceDecimal(t Type, v any) (any, error) {
	switch x := v.(type) {
	case decimal.Decimal:
		return fitDecimal(t, x)
	case float32:
		return fitDecimal(t, decimal.NewFromFloat32(x))
	case float64:
		return fitDecimal(t, decimal.NewFromFloat(x))
	case *big.Int:
		return fitDecimal(t, decimal.NewFromBigInt(x, 0))
	}
	if n, ok := asInt64(v); ok {
		return fitDecimal(t, decimal.NewFromInt(n))
	}
	return ParseValue(t, fmt.Sprint(v))
}

func coerceTime(t Type, v any) (any, error) {
	ts, ok := v.(time.Time)
	if !ok {
		return nil, fmt.Errorf("cannot convert %T to %s", v, t)
	}
	// The wall clock is what Doris stores; keep it and label it UTC.
	wall := time.Date(ts.Year(), ts.Month(), ts.Day(), ts.Hour(), ts.Minute(), ts.Second(), ts.Nanosecond(), time.UTC)
	if t.Kind == Date {
		return time.Date(wall.Year(), wall.Month(), wall.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	return truncateDateTime(wall, t.Scale), nil
}

// CoerceRow normalizes a full row against cols, enforcing NOT NULL.
func CoerceRow(cols []Column, row []any) ([]any, error) {
	if len(row) != len(cols) {
		return nil, fmt.Errorf("row has %d values but the table has %d columns", len(row), len(cols))
	}
	out := make([]any, len(row))
	for i, c := range cols {
		v, err := Coerce(c.Type, row[i])
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
		if v == nil && !c.Nullable {
			return nil, fmt.Errorf("[DATA_QUALITY_ERROR]null value for not null column, column=%s", c.Name)
		}
		out[i] = v
	}
	return out, nil
}
