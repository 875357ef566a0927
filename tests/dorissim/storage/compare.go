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

func cmpOrdered[T int64 | float32 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
