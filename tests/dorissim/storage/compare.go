package storage

import (
	"math/big"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// compareValues orders two normalized scalar values of the same type; NULL
// sorts first, as in Doris.
func compareValues(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	if x, ok := asInt64(a); ok {
		if y, ok := asInt64(b); ok {
			return cmpOrdered(x, y)
		}
	}
	switch x := a.(type) {
	case *big.Int:
		if y, ok := b.(*big.Int); ok {
			return x.Cmp(y)
		}
	case decimal.Decimal:
		if y, ok := b.(decimal.Decimal); ok {
			return x.Cmp(y)
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y)
		}
	case float32:
		if y, ok := b.(float32); ok {
			return cmpOrdered(x, y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmpOrdered(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	}
	return 0
}

// valuesEqual reports whether two normalized values of type t are equal.
// Collections compare member by member: their text form does not escape
// nested strings (see writeNested), so ['a", "b'] and ['a', 'b'] print
// alike; a scalar's text is unique to its value.
func valuesEqual(t Type, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch t.Kind {
	case Array:
		x, _ := a.([]any)
		y, _ := b.([]any)
		return membersEqual(x, y, func(int) Type { return elemOr(t.Elem) })
	case Struct:
		x, _ := a.([]any)
		y, _ := b.([]any)
		return len(x) == len(t.Fields) && membersEqual(x, y, func(i int) Type { return t.Fields[i].Type })
	case Map:
		x, _ := a.(MapValue)
		y, _ := b.(MapValue)
		return membersEqual(x.Keys, y.Keys, func(int) Type { return elemOr(t.Key) }) &&
			membersEqual(x.Values, y.Values, func(int) Type { return elemOr(t.Value) })
	}
	return FormatValue(t, a) == FormatValue(t, b)
}

func membersEqual(x, y []any, typeOf func(int) Type) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !valuesEqual(typeOf(i), x[i], y[i]) {
			return false
		}
	}
	return true
}

func cmpOrdered[T int64 | float32 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
