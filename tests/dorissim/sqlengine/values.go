package sqlengine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// complexValue carries a JSON, ARRAY, MAP or STRUCT value through GMS without
// losing its Doris type, so that a pass-through column comes back exactly as
// stored; JSON functions still see it through sql.JSONWrapper.
type complexValue struct {
	typ storage.Type
	val any // normalized value; compact JSON text for JSON columns
}

var _ sql.JSONWrapper = (*complexValue)(nil)

func (c *complexValue) Clone(context.Context) sql.JSONWrapper { return c }

func (c *complexValue) ToInterface() (interface{}, error) {
	if c.typ.Kind == storage.JSON {
		s, _ := c.val.(string)
		var doc interface{}
		if err := json.Unmarshal([]byte(s), &doc); err != nil {
			return nil, fmt.Errorf("stored JSON value: %w", err)
		}
		return doc, nil
	}
	return jsonInterface(c.typ, c.val), nil
}

// rowNeedsConversion tells whether normalized values of these columns differ
// from their GMS representation; when none does, rows pass through untouched.
func rowNeedsConversion(cols []storage.Column) bool {
	for _, c := range cols {
		if kindNeedsConversion(c.Type.Kind) {
			return true
		}
	}
	return false
}

func kindNeedsConversion(k storage.Kind) bool {
	switch k {
	case storage.Boolean, storage.LargeInt, storage.JSON, storage.Array, storage.Map, storage.Struct:
		return true
	}
	return false
}

// toGMS converts one normalized value into its GMS representation.
func toGMS(t storage.Type, v any) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case storage.Boolean:
		if b, ok := v.(bool); ok {
			if b {
				return int8(1)
			}
			return int8(0)
		}
	case storage.LargeInt:
		if b, ok := v.(*big.Int); ok {
			return decimal.NewFromBigInt(b, 0)
		}
	case storage.JSON, storage.Array, storage.Map, storage.Struct:
		return &complexValue{typ: t, val: v}
	}
	return v
}

// rowToGMS converts a stored row for GMS, allocating only when needed.
func rowToGMS(cols []storage.Column, convert bool, row []any) sql.Row {
	if !convert {
		return sql.Row(row)
	}
	out := make(sql.Row, len(row))
	for i, v := range row {
		if i < len(cols) {
			out[i] = toGMS(cols[i].Type, v)
		} else {
			out[i] = v
		}
	}
	return out
}

// fromGMS converts a GMS value into the normalized value of Doris type t.
func fromGMS(t storage.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if passThrough(t, v) {
		return v, nil
	}
	if cv, ok := v.(*complexValue); ok {
		if cv.typ.Kind == t.Kind {
			return cv.val, nil
		}
		doc, err := cv.ToInterface()
		if err != nil {
			return nil, err
		}
		return fromJSONValue(t, doc)
	}
	switch t.Kind {
	case storage.Boolean:
		return toBool(v)
	case storage.TinyInt, storage.SmallInt, storage.Int, storage.BigInt:
		return toInt(t.Kind, v)
	case storage.LargeInt:
		return toBigInt(v)
	case storage.Float:
		f, err := toFloat(v)
		return float32(f), err
	case storage.Double:
		return toFloat(v)
	case storage.Decimal:
		d, err := toDecimal(v)
		if err != nil {
			return nil, err
		}
		return d.Round(int32(t.Scale)), nil
	case storage.Date:
		tm, err := toTime(v)
		if err != nil {
			return nil, err
		}
		y, m, d := tm.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
	case storage.DateTime:
		tm, err := toTime(v)
		if err != nil {
			return nil, err
		}
		return truncateDatetime(tm, t.Scale), nil
	case storage.Char, storage.Varchar, storage.String:
		return toText(v), nil
	default:
		return fromJSONGMS(t, v)
	}
}

func truncateDatetime(tm time.Time, digits int) time.Time {
	wall := time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), time.UTC)
	unit := time.Second
	for i := 0; i < digits && i < 9; i++ {
		unit /= 10
	}
	return wall.Truncate(unit)
}

func fromJSONGMS(t storage.Type, v any) (any, error) {
	var doc any
	switch x := v.(type) {
	case sql.JSONWrapper:
		d, err := x.ToInterface()
		if err != nil {
			return nil, err
		}
		doc = d
	case string:
		if err := json.Unmarshal([]byte(x), &doc); err != nil {
			return nil, fmt.Errorf("invalid JSON text for %s: %w", t.String(), err)
		}
	case []byte:
		if err := json.Unmarshal(x, &doc); err != nil {
			return nil, fmt.Errorf("invalid JSON text for %s: %w", t.String(), err)
		}
	default:
		doc = x
	}
	return fromJSONValue(t, doc)
}

func toText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		return x.Format("2006-01-02 15:04:05.999999")
	case decimal.Decimal:
		return x.String()
	case sql.JSONWrapper:
		s, err := types.JsonToMySqlString(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return s
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprint(x)
	}
}

// passThrough reports values that already are normalized for t, so the hot
// result path neither converts nor re-boxes them.
func passThrough(t storage.Type, v any) bool {
	switch x := v.(type) {
	case int64:
		return t.Kind == storage.BigInt
	case int32:
		return t.Kind == storage.Int
	case int16:
		return t.Kind == storage.SmallInt
	case int8:
		return t.Kind == storage.TinyInt
	case float64:
		return t.Kind == storage.Double
	case float32:
		return t.Kind == storage.Float
	case string:
		return t.Kind == storage.Char || t.Kind == storage.Varchar || t.Kind == storage.String
	case decimal.Decimal:
		return t.Kind == storage.Decimal && x.Exponent() == -int32(t.Scale)
	case time.Time:
		if x.Location() != time.UTC {
			return false
		}
		if t.Kind == storage.Date {
			return x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0
		}
		return t.Kind == storage.DateTime && x.Equal(truncateDatetime(x, t.Scale))
	}
	return false
}
