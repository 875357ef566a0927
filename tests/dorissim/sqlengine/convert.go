package sqlengine

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

func toBool(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("invalid BOOLEAN value %q", x)
	}
	f, err := toFloat(v)
	if err != nil {
		return nil, err
	}
	return f != 0, nil
}

func toInt(k storage.Kind, v any) (any, error) {
	var n int64
	switch x := v.(type) {
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case int:
		n = int64(x)
	case uint8:
		n = int64(x)
	case uint16:
		n = int64(x)
	case uint32:
		n = int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return nil, fmt.Errorf("value %d out of range", x)
		}
		n = int64(x)
	case bool:
		if x {
			n = 1
		}
	default:
		d, err := toDecimal(v)
		if err != nil {
			return nil, err
		}
		if !d.IsInteger() || d.GreaterThan(decimal.NewFromInt(math.MaxInt64)) || d.LessThan(decimal.NewFromInt(math.MinInt64)) {
			return nil, fmt.Errorf("value %s is not a valid integer", d)
		}
		n = d.IntPart()
	}
	return narrowInt(k, n)
}

func narrowInt(k storage.Kind, n int64) (any, error) {
	switch k {
	case storage.TinyInt:
		if n < math.MinInt8 || n > math.MaxInt8 {
			return nil, fmt.Errorf("value %d out of range for TINYINT", n)
		}
		return int8(n), nil
	case storage.SmallInt:
		if n < math.MinInt16 || n > math.MaxInt16 {
			return nil, fmt.Errorf("value %d out of range for SMALLINT", n)
		}
		return int16(n), nil
	case storage.Int:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, fmt.Errorf("value %d out of range for INT", n)
		}
		return int32(n), nil
	}
	return n, nil
}

func toBigInt(v any) (any, error) {
	switch x := v.(type) {
	case *big.Int:
		return x, nil
	case uint64:
		return new(big.Int).SetUint64(x), nil
	}
	d, err := toDecimal(v)
	if err != nil {
		return nil, err
	}
	if !d.IsInteger() {
		return nil, fmt.Errorf("value %s is not a valid LARGEINT", d)
	}
	return d.BigInt(), nil
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case int8:
		return float64(x), nil
	case int16:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint8:
		return float64(x), nil
	case uint16:
		return float64(x), nil
	case uint32:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case decimal.Decimal:
		f, _ := x.Float64()
		return f, nil
	case json.Number:
		return x.Float64()
	case string:
		return strconv.ParseFloat(strings.TrimSpace(x), 64)
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("cannot convert %T to a number", v)
}

func toDecimal(v any) (decimal.Decimal, error) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, nil
	case decimal.NullDecimal:
		return x.Decimal, nil
	case *big.Int:
		return decimal.NewFromBigInt(x, 0), nil
	case string:
		return decimal.NewFromString(strings.TrimSpace(x))
	case []byte:
		return decimal.NewFromString(strings.TrimSpace(string(x)))
	case json.Number:
		return decimal.NewFromString(string(x))
	case float64:
		return decimal.NewFromFloat(x), nil
	case float32:
		return decimal.NewFromFloat32(x), nil
	case int64:
		return decimal.NewFromInt(x), nil
	case uint64:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(x), 0), nil
	}
	if n, err := toInt(storage.BigInt, v); err == nil {
		return decimal.NewFromInt(n.(int64)), nil
	}
	return decimal.Decimal{}, fmt.Errorf("cannot convert %T to a decimal", v)
}

var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

func toTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case string:
		for _, l := range timeLayouts {
			if t, err := time.ParseInLocation(l, strings.TrimSpace(x), time.UTC); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("invalid date/time value %q", x)
	}
	return time.Time{}, fmt.Errorf("cannot convert %T to a date/time", v)
}

// fromJSONValue converts a decoded JSON document into the normalized value of
// t; this is how complex literals written as JSON text reach storage.
func fromJSONValue(t storage.Type, doc any) (any, error) {
	if doc == nil {
		return nil, nil
	}
	switch t.Kind {
	case storage.JSON:
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("JSON value: %w", err)
		}
		return string(b), nil
	case storage.Array:
		return arrayFromJSON(t, doc)
	case storage.Map:
		return mapFromJSON(t, doc)
	case storage.Struct:
		return structFromJSON(t, doc)
	}
	return fromGMS(t, doc)
}

func arrayFromJSON(t storage.Type, doc any) (any, error) {
	items, ok := doc.([]any)
	if !ok || t.Elem == nil {
		return nil, fmt.Errorf("value for %s must be a JSON array", t.String())
	}
	out := make([]any, len(items))
	for i, it := range items {
		v, err := fromJSONValue(*t.Elem, it)
		if err != nil {
			return nil, fmt.Errorf("%s element %d: %w", t.String(), i, err)
		}
		out[i] = v
	}
	return out, nil
}

func mapFromJSON(t storage.Type, doc any) (any, error) {
	obj, ok := doc.(map[string]any)
	if !ok || t.Key == nil || t.Value == nil {
		return nil, fmt.Errorf("value for %s must be a JSON object", t.String())
	}
	keys := sortedKeys(obj)
	mv := storage.MapValue{Keys: make([]any, 0, len(keys)), Values: make([]any, 0, len(keys))}
	for _, k := range keys {
		kv, err := fromGMS(*t.Key, k)
		if err != nil {
			return nil, fmt.Errorf("%s key %q: %w", t.String(), k, err)
		}
		vv, err := fromJSONValue(*t.Value, obj[k])
		if err != nil {
			return nil, fmt.Errorf("%s value of %q: %w", t.String(), k, err)
		}
		mv.Keys = append(mv.Keys, kv)
		mv.Values = append(mv.Values, vv)
	}
	return mv, nil
}

func structFromJSON(t storage.Type, doc any) (any, error) {
	out := make([]any, len(t.Fields))
	switch x := doc.(type) {
	case map[string]any:
		for i, f := range t.Fields {
			v, err := fromJSONValue(f.Type, x[f.Name])
			if err != nil {
				return nil, fmt.Errorf("%s field %s: %w", t.String(), f.Name, err)
			}
			out[i] = v
		}
	case []any:
		if len(x) != len(t.Fields) {
			return nil, fmt.Errorf("%s needs %d fields, got %d", t.String(), len(t.Fields), len(x))
		}
		for i, f := range t.Fields {
			v, err := fromJSONValue(f.Type, x[i])
			if err != nil {
				return nil, fmt.Errorf("%s field %s: %w", t.String(), f.Name, err)
			}
			out[i] = v
		}
	default:
		return nil, fmt.Errorf("value for %s must be a JSON object", t.String())
	}
	return out, nil
}

// jsonInterface renders a normalized value as a JSON-compatible document
// (what GMS JSON functions operate on).
func jsonInterface(t storage.Type, v any) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case storage.Array:
		items, _ := v.([]any)
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = jsonInterface(elemType(t.Elem), it)
		}
		return out
	case storage.Map:
		mv, _ := v.(storage.MapValue)
		out := make(map[string]any, len(mv.Keys))
		for i, k := range mv.Keys {
			if i < len(mv.Values) {
				out[storage.FormatValue(storage.Type{}, k)] = jsonInterface(elemType(t.Value), mv.Values[i])
			}
		}
		return out
	case storage.Struct:
		fields, _ := v.([]any)
		out := make(map[string]any, len(t.Fields))
		for i, f := range t.Fields {
			if i < len(fields) {
				out[f.Name] = jsonInterface(f.Type, fields[i])
			}
		}
		return out
	case storage.JSON:
		var doc any
		if s, ok := v.(string); ok && json.Unmarshal([]byte(s), &doc) == nil {
			return doc
		}
		return nil
	}
	switch x := v.(type) {
	case *big.Int:
		return decimal.NewFromBigInt(x, 0)
	case time.Time:
		return storage.FormatValue(storage.Type{}, x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	}
	return v
}

func elemType(t *storage.Type) storage.Type {
	if t == nil {
		return storage.Type{Kind: storage.String}
	}
	return *t
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
