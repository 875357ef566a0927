package flightsrv

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// appender appends one normalized value (contracts §1) to the builder it was
// bound to; nil appends NULL.
type appender func(v any) error

// bind binds a value appender for Doris type t to builder b. Binding once per
// stream keeps the per-value path free of dispatch on t.
func bind(t storage.Type, b array.Builder) (appender, error) {
	a, err := bindValue(t, b)
	if err != nil {
		return nil, err
	}
	return func(v any) error {
		if v == nil {
			b.AppendNull()
			return nil
		}
		return a(v)
	}, nil
}

func bindValue(t storage.Type, b array.Builder) (appender, error) {
	switch t.Kind {
	case storage.Boolean:
		return typed(plain(b.(*array.BooleanBuilder).Append)), nil
	case storage.TinyInt:
		return typed(plain(b.(*array.Int8Builder).Append)), nil
	case storage.SmallInt:
		return typed(plain(b.(*array.Int16Builder).Append)), nil
	case storage.Int:
		return typed(plain(b.(*array.Int32Builder).Append)), nil
	case storage.BigInt:
		return typed(plain(b.(*array.Int64Builder).Append)), nil
	case storage.Float:
		return typed(plain(b.(*array.Float32Builder).Append)), nil
	case storage.Double:
		return typed(plain(b.(*array.Float64Builder).Append)), nil
	case storage.Char, storage.Varchar, storage.String, storage.JSON:
		return typed(plain(b.(*array.StringBuilder).Append)), nil
	case storage.LargeInt:
		sb := b.(*array.StringBuilder)
		return typed(plain(func(v *big.Int) { sb.Append(v.String()) })), nil
	case storage.Decimal:
		return decimalAppender(t, b)
	case storage.Date:
		db := b.(*array.Date32Builder)
		return typed(plain(func(v time.Time) { db.Append(arrow.Date32FromTime(v)) })), nil
	case storage.DateTime:
		return datetimeAppender(t, b.(*array.TimestampBuilder)), nil
	case storage.Array:
		return listAppender(t, b.(*array.ListBuilder))
	case storage.Map:
		return mapAppender(t, b.(*array.MapBuilder))
	case storage.Struct:
		return structAppender(t, b.(*array.StructBuilder))
	}
	return nil, fmt.Errorf("unsupported Doris type %s", t.String())
}

func plain[T any](fn func(T)) func(T) error {
	return func(v T) error { fn(v); return nil }
}

// typed adds the Go type check, so that a malformed engine value becomes an
// error rather than a panic.
func typed[T any](fn func(T) error) appender {
	return func(v any) error {
		tv, ok := v.(T)
		if !ok {
			var zero T
			return fmt.Errorf("value %v has Go type %T, want %T", v, v, zero)
		}
		return fn(tv)
	}
}

func decimalAppender(t storage.Type, b array.Builder) (appender, error) {
	scale := int32(t.Scale)
	unscaled := func(d decimal.Decimal) *big.Int {
		if d.Exponent() == -scale {
			return d.Coefficient() // stored values already have the column's scale
		}
		return d.Shift(scale).BigInt()
	}
	// Bounds of an int64 coefficient at the column's scale: comparing with
	// them allocates nothing, where Coefficient copies a big.Int per value.
	lo, hi := decimal.New(math.MinInt64, -scale), decimal.New(math.MaxInt64, -scale)
	switch db := b.(type) {
	case *array.Decimal128Builder:
		return typed(plain(func(d decimal.Decimal) {
			if d.Exponent() == -scale && d.Cmp(lo) >= 0 && d.Cmp(hi) <= 0 {
				db.Append(decimal128.FromI64(d.CoefficientInt64()))
				return
			}
			u := unscaled(d)
			if u.IsInt64() {
				db.Append(decimal128.FromI64(u.Int64()))
				return
			}
			db.Append(decimal128.FromBigInt(u))
		})), nil
	case *array.Decimal256Builder:
		return typed(plain(func(d decimal.Decimal) { db.Append(decimal256.FromBigInt(unscaled(d))) })), nil
	}
	return nil, fmt.Errorf("decimal builder has type %T", b)
}

func datetimeAppender(t storage.Type, b *array.TimestampBuilder) appender {
	unit := timeUnit(t.Scale)
	return typed(plain(func(v time.Time) {
		// Doris sends the wall clock with no zone, so the zone is dropped;
		// stored values already are wall clocks in UTC.
		wall := v
		if v.Location() != time.UTC {
			wall = time.Date(v.Year(), v.Month(), v.Day(), v.Hour(), v.Minute(), v.Second(), v.Nanosecond(), time.UTC)
		}
		var n int64
		switch unit {
		case arrow.Second:
			n = wall.Unix()
		case arrow.Millisecond:
			n = wall.UnixMilli()
		default:
			n = wall.UnixMicro()
		}
		b.Append(arrow.Timestamp(n))
	}))
}

func listAppender(t storage.Type, b *array.ListBuilder) (appender, error) {
	if t.Elem == nil {
		return nil, fmt.Errorf("ARRAY without element type")
	}
	elem, err := bind(*t.Elem, b.ValueBuilder())
	if err != nil {
		return nil, fmt.Errorf("array element: %w", err)
	}
	return typed(func(vs []any) error {
		b.Append(true)
		return appendAll(elem, vs)
	}), nil
}

func mapAppender(t storage.Type, b *array.MapBuilder) (appender, error) {
	if t.Key == nil || t.Value == nil {
		return nil, fmt.Errorf("MAP without key or value type")
	}
	key, err := bindValue(*t.Key, b.KeyBuilder())
	if err != nil {
		return nil, fmt.Errorf("map key: %w", err)
	}
	val, err := bind(*t.Value, b.ItemBuilder())
	if err != nil {
		return nil, fmt.Errorf("map value: %w", err)
	}
	return typed(func(m storage.MapValue) error {
		if len(m.Keys) != len(m.Values) {
			return fmt.Errorf("map has %d keys and %d values", len(m.Keys), len(m.Values))
		}
		for _, k := range m.Keys {
			if k == nil {
				return fmt.Errorf("map key is NULL")
			}
		}
		b.Append(true)
		if err := appendAll(key, m.Keys); err != nil {
			return err
		}
		return appendAll(val, m.Values)
	}), nil
}

func structAppender(t storage.Type, b *array.StructBuilder) (appender, error) {
	fields := make([]appender, len(t.Fields))
	for i, f := range t.Fields {
		a, err := bind(f.Type, b.FieldBuilder(i))
		if err != nil {
			return nil, fmt.Errorf("struct field %s: %w", f.Name, err)
		}
		fields[i] = a
	}
	return typed(func(vs []any) error {
		if len(vs) != len(fields) {
			return fmt.Errorf("struct value has %d fields, want %d", len(vs), len(fields))
		}
		b.Append(true)
		for i, a := range fields {
			if err := a(vs[i]); err != nil {
				return fmt.Errorf("struct field %s: %w", t.Fields[i].Name, err)
			}
		}
		return nil
	}), nil
}

func appendAll(a appender, vs []any) error {
	for _, v := range vs {
		if err := a(v); err != nil {
			return err
		}
	}
	return nil
}
