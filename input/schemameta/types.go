package schemameta

import (
	"fmt"

	"github.com/redpanda-data/benthos/v4/public/schema"
)

// commonOf maps a Doris type onto a benthos Common schema node describing
// the JSON value the body holds for it (input/rowjson writes the bodies).
//
//   - BOOLEAN: Boolean. TINYINT, SMALLINT, INT: Int32 (Common has no
//     narrower integers). BIGINT: Int64. FLOAT, DOUBLE: Float32, Float64.
//   - LARGEINT: BigDecimal. Doris LARGEINT is a signed 128-bit integer, up to
//     39 digits, one more than Common's DECIMAL allows (precision <= 38), so
//     DECIMAL(39,0) would not validate, and Int64 would lose values. The body
//     carries the exact integer as a string, which is a canonical BigDecimal
//     value at scale 0, so BigDecimal keeps both the exact value and its
//     numeric meaning; String would keep the value but tell schema-aware
//     writers it is text. Writers without an arbitrary-precision decimal
//     refuse BigDecimal with an error rather than guess.
//   - DECIMAL(p,s) (DECIMALV2, DECIMALV3, DECIMAL32/64/128/128I/256):
//     Decimal with precision p and scale s. DECIMAL256 precisions above 38
//     exceed Common's DECIMAL, so they become BigDecimal.
//   - DATE, DATEV2: Date.
//   - DATETIME(p), DATETIMEV2(p): Timestamp with AdjustToUTC false, since
//     Doris datetimes are wall-clock values without a zone, and the unit
//     that holds p fractional digits: seconds for 0, millis for 1-3, micros
//     for 4-6 (the units of Doris's Arrow timestamps).
//   - CHAR, VARCHAR, STRING, TEXT, IPV4, IPV6: String.
//   - JSON, JSONB, VARIANT: Any; the body embeds the JSON document itself.
//   - ARRAY<T>: Array with one child, the element.
//   - MAP<K,V> with a scalar key: Map with one child, the value, since the
//     body is a JSON object keyed by the keys' text. With a nested or JSON
//     key the body is an array of {"key","value"} objects, and the schema
//     says so: Array of Object{key, value}.
//   - STRUCT<...>: Object with one child per field, in declared order.
//
// Nested elements, values and fields are optional (Doris lets them hold
// NULL) unless declared NOT NULL. Other types (HLL, BITMAP, QUANTILE_STATE,
// AGG_STATE, ...) have no JSON body form and are an error.
func commonOf(name string, t dorisType, optional bool) (schema.Common, error) {
	c := schema.Common{Name: name, Optional: optional}
	switch t.name {
	case "BOOLEAN", "BOOL":
		c.Type = schema.Boolean
	case "TINYINT", "SMALLINT", "INT", "INTEGER":
		c.Type = schema.Int32
	case "BIGINT":
		c.Type = schema.Int64
	case "LARGEINT":
		c.Type = schema.BigDecimal
	case "FLOAT":
		c.Type = schema.Float32
	case "DOUBLE":
		c.Type = schema.Float64
	case "DECIMAL", "DECIMALV2", "DECIMALV3", "DECIMAL32", "DECIMAL64", "DECIMAL128", "DECIMAL128I", "DECIMAL256":
		return decimalOf(c, t)
	case "DATE", "DATEV2":
		c.Type = schema.Date
	case "DATETIME", "DATETIMEV2":
		return timestampOf(c, t)
	case "CHAR", "VARCHAR", "STRING", "TEXT", "IPV4", "IPV6":
		c.Type = schema.String
	case "JSON", "JSONB", "VARIANT":
		c.Type = schema.Any
	case "ARRAY":
		elem, err := childOf("element", t.elems[0])
		if err != nil {
			return c, err
		}
		c.Type, c.Children = schema.Array, []schema.Common{elem}
	case "MAP":
		return mapOf(c, t)
	case "STRUCT":
		c.Type = schema.Object
		for i, ft := range t.elems {
			f, err := childOf(t.fields[i], ft)
			if err != nil {
				return c, err
			}
			c.Children = append(c.Children, f)
		}
	default:
		return c, fmt.Errorf("type %s has no schema mapping", t.name)
	}
	if len(t.args) > 0 && !takesLength(t.name) {
		return c, fmt.Errorf("type %s takes no arguments", t.name)
	}
	return c, nil
}

func childOf(name string, t dorisType) (schema.Common, error) {
	c, err := commonOf(name, t, !t.notNull)
	if err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// takesLength lists the scalar types whose (n) argument is a length or
// display width that does not change the value's schema.
func takesLength(name string) bool {
	switch name {
	case "CHAR", "VARCHAR", "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "LARGEINT", "BOOLEAN", "BOOL":
		return true
	}
	return false
}

func decimalOf(c schema.Common, t dorisType) (schema.Common, error) {
	var p, s int
	switch len(t.args) {
	case 1:
		p = t.args[0]
	case 2:
		p, s = t.args[0], t.args[1]
	default:
		// SHOW CREATE TABLE always prints decimal(p,s); anything else is
		// not a type this client can describe without guessing.
		return c, fmt.Errorf("type %s needs (precision, scale)", t.name)
	}
	if p < 1 || s < 0 || s > p {
		return c, fmt.Errorf("type %s(%d,%d): precision must be at least 1 and scale between 0 and precision", t.name, p, s)
	}
	if p > int(schema.DecimalMaxPrecision) {
		c.Type = schema.BigDecimal
		return c, nil
	}
	c.Type = schema.Decimal
	c.Logical = &schema.LogicalParams{Decimal: &schema.DecimalParams{Precision: int32(p), Scale: int32(s)}}
	return c, nil
}

func timestampOf(c schema.Common, t dorisType) (schema.Common, error) {
	p := 0
	switch len(t.args) {
	case 0:
	case 1:
		p = t.args[0]
	default:
		return c, fmt.Errorf("type %s takes at most one argument", t.name)
	}
	unit, err := timeUnit(p)
	if err != nil {
		return c, fmt.Errorf("type %s(%d): %w", t.name, p, err)
	}
	c.Type = schema.Timestamp
	c.Logical = &schema.LogicalParams{Timestamp: &schema.TimestampParams{Unit: unit, AdjustToUTC: false}}
	return c, nil
}

// timeUnit is the coarsest Common unit that holds p fractional digits.
func timeUnit(p int) (schema.TimeUnit, error) {
	switch {
	case p == 0:
		return schema.TimeUnitSeconds, nil
	case p >= 1 && p <= 3:
		return schema.TimeUnitMillis, nil
	case p >= 4 && p <= 6:
		return schema.TimeUnitMicros, nil
	}
	return 0, fmt.Errorf("fractional digits must be between 0 and 6")
}

func mapOf(c schema.Common, t dorisType) (schema.Common, error) {
	key, value := t.elems[0], t.elems[1]
	if isScalarKey(key) {
		v, err := childOf("value", value)
		if err != nil {
			return c, err
		}
		c.Type, c.Children = schema.Map, []schema.Common{v}
		return c, nil
	}
	k, err := childOf("key", key)
	if err != nil {
		return c, err
	}
	v, err := childOf("value", value)
	if err != nil {
		return c, err
	}
	entry := schema.Common{Name: "entry", Type: schema.Object, Children: []schema.Common{k, v}}
	c.Type, c.Children = schema.Array, []schema.Common{entry}
	return c, nil
}

// isScalarKey mirrors input/rowjson: keys that print as one JSON scalar
// become object member names.
func isScalarKey(t dorisType) bool {
	switch t.name {
	case "ARRAY", "MAP", "STRUCT", "JSON", "JSONB", "VARIANT":
		return false
	}
	return true
}
