package flightsrv

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Schema maps result columns to the Arrow schema the newest Doris BE sends
// (doris-facts §11).
func Schema(cols []storage.Column) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		f, err := fieldFor(c.Name, c.Type, c.Nullable)
		if err != nil {
			return nil, fmt.Errorf("arrow schema for column %s: %w", c.Name, err)
		}
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil), nil
}

func fieldFor(name string, t storage.Type, nullable bool) (arrow.Field, error) {
	dt, err := DataType(t)
	if err != nil {
		return arrow.Field{}, err
	}
	f := arrow.Field{Name: name, Type: dt, Nullable: nullable}
	switch t.Kind {
	case storage.LargeInt:
		f.Metadata = arrow.NewMetadata([]string{"doris_type"}, []string{"LARGEINT"})
	case storage.JSON:
		f.Metadata = arrow.NewMetadata([]string{"doris_type"}, []string{"JSON"})
	}
	return f, nil
}

// DataType is the Arrow type of a Doris type.
func DataType(t storage.Type) (arrow.DataType, error) {
	switch t.Kind {
	case storage.Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case storage.TinyInt:
		return arrow.PrimitiveTypes.Int8, nil
	case storage.SmallInt:
		return arrow.PrimitiveTypes.Int16, nil
	case storage.Int:
		return arrow.PrimitiveTypes.Int32, nil
	case storage.BigInt:
		return arrow.PrimitiveTypes.Int64, nil
	case storage.Float:
		return arrow.PrimitiveTypes.Float32, nil
	case storage.Double:
		return arrow.PrimitiveTypes.Float64, nil
	case storage.Decimal:
		if t.Precision > 38 {
			return &arrow.Decimal256Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
		}
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case storage.Date:
		return arrow.FixedWidthTypes.Date32, nil
	case storage.DateTime:
		return &arrow.TimestampType{Unit: timeUnit(t.Scale)}, nil
	case storage.LargeInt, storage.Char, storage.Varchar, storage.String, storage.JSON:
		return arrow.BinaryTypes.String, nil
	case storage.Array:
		return nestedList(t)
	case storage.Map:
		return nestedMap(t)
	case storage.Struct:
		return nestedStruct(t)
	}
	return nil, fmt.Errorf("unsupported Doris type %s", t.String())
}

func timeUnit(scale int) arrow.TimeUnit {
	switch {
	case scale <= 0:
		return arrow.Second
	case scale <= 3:
		return arrow.Millisecond
	default:
		return arrow.Microsecond
	}
}

func nestedList(t storage.Type) (arrow.DataType, error) {
	if t.Elem == nil {
		return nil, fmt.Errorf("ARRAY without element type")
	}
	f, err := fieldFor("item", *t.Elem, true)
	if err != nil {
		return nil, err
	}
	return arrow.ListOfField(f), nil
}

func nestedMap(t storage.Type) (arrow.DataType, error) {
	if t.Key == nil || t.Value == nil {
		return nil, fmt.Errorf("MAP without key or value type")
	}
	k, err := fieldFor("key", *t.Key, false)
	if err != nil {
		return nil, err
	}
	v, err := fieldFor("value", *t.Value, true)
	if err != nil {
		return nil, err
	}
	return arrow.MapOfFields(k, v), nil
}

func nestedStruct(t storage.Type) (arrow.DataType, error) {
	fs := make([]arrow.Field, len(t.Fields))
	for i, sf := range t.Fields {
		f, err := fieldFor(sf.Name, sf.Type, true)
		if err != nil {
			return nil, fmt.Errorf("struct field %s: %w", sf.Name, err)
		}
		fs[i] = f
	}
	return arrow.StructOf(fs...), nil
}
