package feapi

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// cellValue renders a normalized value the way the FE's query API does:
// integers and finite floats as JSON numbers, everything else in Doris's
// text form as a JSON string.
func cellValue(t storage.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int8, int16, int32, int64:
		return x, nil
	case float32:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return textOf(t, v)
		}
		return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32)), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return textOf(t, v)
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	}
	return textOf(t, v)
}

// textOf is Doris's text form of a value (what the MySQL protocol shows).
func textOf(t storage.Type, v any) (string, error) {
	var b strings.Builder
	if err := writeText(&b, t, v, false); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeText appends the text form; nested values quote their strings like
// Doris prints ARRAY/MAP/STRUCT (["a", "b"], {"k":1}).
func writeText(b *strings.Builder, t storage.Type, v any, nested bool) error {
	if v == nil {
		if nested {
			b.WriteString("null")
		}
		return nil
	}
	switch x := v.(type) {
	case bool:
		b.WriteString(map[bool]string{true: "1", false: "0"}[x])
	case int8, int16, int32, int64:
		fmt.Fprintf(b, "%d", x)
	case float32:
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case *big.Int:
		b.WriteString(x.String())
	case decimal.Decimal:
		b.WriteString(x.StringFixed(int32(t.Scale)))
	case time.Time:
		writeTime(b, t, x, nested)
	case string:
		writeString(b, t, x, nested)
	case storage.MapValue:
		return writeMap(b, t, x)
	case []any:
		if t.Kind == storage.Struct {
			return writeStruct(b, t, x)
		}
		return writeArray(b, t, x)
	default:
		return fmt.Errorf("value %v has unexpected Go type %T for %s", v, v, t.String())
	}
	return nil
}

func writeTime(b *strings.Builder, t storage.Type, x time.Time, nested bool) {
	layout := "2006-01-02"
	if t.Kind == storage.DateTime {
		layout = "2006-01-02 15:04:05"
		if t.Scale > 0 {
			layout += "." + strings.Repeat("0", t.Scale)
		}
	}
	s := x.Format(layout)
	if nested {
		s = strconv.Quote(s)
	}
	b.WriteString(s)
}

func writeString(b *strings.Builder, t storage.Type, s string, nested bool) {
	if nested && t.Kind != storage.JSON {
		q, _ := json.Marshal(s)
		b.Write(q)
		return
	}
	b.WriteString(s)
}

func writeArray(b *strings.Builder, t storage.Type, vs []any) error {
	if t.Elem == nil {
		return fmt.Errorf("ARRAY value for non-array type %s", t.String())
	}
	b.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeText(b, *t.Elem, v, true); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func writeMap(b *strings.Builder, t storage.Type, m storage.MapValue) error {
	if t.Key == nil || t.Value == nil || len(m.Keys) != len(m.Values) {
		return fmt.Errorf("malformed MAP value for %s", t.String())
	}
	b.WriteByte('{')
	for i := range m.Keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeText(b, *t.Key, m.Keys[i], true); err != nil {
			return err
		}
		b.WriteByte(':')
		if err := writeText(b, *t.Value, m.Values[i], true); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func writeStruct(b *strings.Builder, t storage.Type, vs []any) error {
	if len(vs) != len(t.Fields) {
		return fmt.Errorf("STRUCT value has %d fields, type %s has %d", len(vs), t.String(), len(t.Fields))
	}
	b.WriteByte('{')
	for i, f := range t.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		q, _ := json.Marshal(f.Name)
		b.Write(q)
		b.WriteByte(':')
		if err := writeText(b, f.Type, vs[i], true); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// metaType is the type name the query API reports for a column.
func metaType(t storage.Type) string {
	s := t.String()
	if i := strings.IndexAny(s, "(<"); i > 0 {
		s = s[:i]
	}
	return s
}

// rowCells renders one row; asText renders every non-NULL cell as a string.
func rowCells(cols []storage.Column, row []any, asText bool) ([]any, error) {
	if len(row) != len(cols) {
		return nil, fmt.Errorf("row has %d values for %d columns", len(row), len(cols))
	}
	cells := make([]any, len(row))
	for i, v := range row {
		var c any
		var err error
		if asText && v != nil {
			c, err = textOf(cols[i].Type, v)
		} else {
			c, err = cellValue(cols[i].Type, v)
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cols[i].Name, err)
		}
		cells[i] = c
	}
	return cells, nil
}
