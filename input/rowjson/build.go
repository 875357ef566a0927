package rowjson

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
)

// dorisType reads the doris_type field metadata the BE attaches to columns
// whose Arrow type alone is ambiguous (LARGEINT, JSON, IPV4).
func dorisType(f arrow.Field) string {
	if i := f.Metadata.FindKey("doris_type"); i >= 0 {
		return strings.ToUpper(strings.TrimSpace(f.Metadata.Values()[i]))
	}
	return ""
}

// extensionName reads the extension a field carries in metadata, which is
// how unregistered extension types (arrow.uuid, arrow.json) arrive over IPC.
func extensionName(f arrow.Field) string {
	if i := f.Metadata.FindKey("ARROW:extension:name"); i >= 0 {
		return f.Metadata.Values()[i]
	}
	return ""
}

// writerConfig carries what a writer choice needs beyond the field itself.
type writerConfig struct {
	loc  *time.Location
	prec int // DATETIME precision for this column, -1 when unknown
}

func unsupported(path string, t arrow.DataType) error {
	return fmt.Errorf("column %q: unsupported Arrow type %s", path, t)
}

// newWriter chooses the writer for a field once per schema. path names the
// value for errors ("col", "col[]", "col.key", "col.field").
func newWriter(f arrow.Field, path string, cfg writerConfig) (writer, error) {
	if t, ok := f.Type.(*arrow.TimestampType); ok && t.TimeZone != "" && cfg.loc == nil {
		loc, err := arrowZone(t.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("column %q: timestamp zone %q: %w", path, t.TimeZone, err)
		}
		cfg.loc = loc
	}
	if w := newScalarWriter(f, cfg); w != nil {
		return w, nil
	}
	nested := writerConfig{loc: cfg.loc, prec: -1}
	switch t := f.Type.(type) {
	case *arrow.MapType:
		return newMapWriter(t, path, nested)
	case arrow.ListLikeType:
		elem, err := newWriter(t.ElemField(), path+"[]", nested)
		if err != nil {
			return nil, err
		}
		return &listWriter{elem: elem}, nil
	case *arrow.StructType:
		return newStructWriter(t, path, nested)
	case *arrow.DictionaryType:
		vf := arrow.Field{Name: f.Name, Type: t.ValueType, Nullable: true, Metadata: f.Metadata}
		values, err := newWriter(vf, path, cfg)
		if err != nil {
			return nil, err
		}
		return &dictionaryWriter{values: values}, nil
	case arrow.ExtensionType:
		return newExtensionWriter(t, path)
	}
	return nil, unsupported(path, f.Type)
}

// newScalarWriter returns nil for types that are not leaf values.
func newScalarWriter(f arrow.Field, cfg writerConfig) writer {
	if w := newNumericWriter(f); w != nil {
		return w
	}
	switch t := f.Type.(type) {
	case *arrow.NullType:
		return nullWriter{}
	case *arrow.BooleanType:
		return &boolWriter{}
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		if dorisType(f) == "JSON" || extensionName(f) == "arrow.json" {
			return &jsonWriter{}
		}
		return &stringWriter{}
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return &binaryWriter{}
	case *arrow.FixedSizeBinaryType:
		return newFixedSizeBinaryWriter(f, t)
	case *arrow.Date32Type:
		return &dateWriter[arrow.Date32]{divisor: 1}
	case *arrow.Date64Type:
		return &dateWriter[arrow.Date64]{divisor: secondsPerDay * 1000}
	case *arrow.TimestampType:
		prec := cfg.prec
		if prec < 0 {
			prec = unitPrecision(t.Unit)
		}
		return newTimestampWriter(t, prec, cfg.loc)
	}
	return newDecimalWriter(f.Type)
}

func newNumericWriter(f arrow.Field) writer {
	ipv4 := dorisType(f) == "IPV4"
	switch f.Type.ID() {
	case arrow.INT8:
		return &intWriter[int8]{}
	case arrow.INT16:
		return &intWriter[int16]{}
	case arrow.INT32:
		if ipv4 {
			return &ipv4Writer[int32]{}
		}
		return &intWriter[int32]{}
	case arrow.INT64:
		return &intWriter[int64]{}
	case arrow.UINT8:
		return &uintWriter[uint8]{}
	case arrow.UINT16:
		return &uintWriter[uint16]{}
	case arrow.UINT32:
		if ipv4 {
			return &ipv4Writer[uint32]{}
		}
		return &uintWriter[uint32]{}
	case arrow.UINT64:
		return &uintWriter[uint64]{}
	case arrow.FLOAT16:
		return &float16Writer{}
	case arrow.FLOAT32:
		return &floatWriter[float32]{bitSize: 32}
	case arrow.FLOAT64:
		return &floatWriter[float64]{bitSize: 64}
	}
	return nil
}

func newDecimalWriter(t arrow.DataType) writer {
	switch t := t.(type) {
	case *arrow.Decimal32Type:
		return &smallDecimalWriter[decimal.Decimal32]{scale: t.Scale}
	case *arrow.Decimal64Type:
		return &smallDecimalWriter[decimal.Decimal64]{scale: t.Scale}
	case *arrow.Decimal128Type:
		return &decimal128Writer{scale: t.Scale}
	case *arrow.Decimal256Type:
		return &decimal256Writer{scale: t.Scale}
	}
	return nil
}

// newFixedSizeBinaryWriter treats fixed_size_binary(16) as the older LARGEINT
// encoding unless metadata says otherwise: no other Doris type maps to it
// except UUID, which carries the arrow.uuid extension name.
func newFixedSizeBinaryWriter(f arrow.Field, t *arrow.FixedSizeBinaryType) writer {
	if extensionName(f) == "arrow.uuid" && t.ByteWidth == 16 {
		return &uuidWriter{}
	}
	dt := dorisType(f)
	largeInt := dt == "LARGEINT" || dt == "" && t.ByteWidth == 16
	if largeInt && t.ByteWidth >= 1 && t.ByteWidth <= 32 {
		return &largeIntBinaryWriter{}
	}
	return &binaryWriter{}
}

func newMapWriter(t *arrow.MapType, path string, cfg writerConfig) (writer, error) {
	key, err := newWriter(t.KeyField(), path+".key", cfg)
	if err != nil {
		return nil, err
	}
	value, err := newWriter(t.ItemField(), path+".value", cfg)
	if err != nil {
		return nil, err
	}
	return &mapWriter{key: key, value: value, objectKeys: isScalarKey(t.KeyField())}, nil
}

// isScalarKey reports whether map keys print as one JSON string, number,
// boolean or null token and so can become object member names.
func isScalarKey(f arrow.Field) bool {
	t := f.Type
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.ValueType
	}
	if _, ok := t.(arrow.NestedType); ok {
		return false
	}
	if _, ok := t.(arrow.ExtensionType); ok {
		return false
	}
	return dorisType(f) != "JSON" && extensionName(f) != "arrow.json"
}

func newStructWriter(t *arrow.StructType, path string, cfg writerConfig) (writer, error) {
	fields := t.Fields()
	names := make([]string, len(fields))
	writers := make([]writer, len(fields))
	for k, sf := range fields {
		w, err := newWriter(sf, path+"."+sf.Name, cfg)
		if err != nil {
			return nil, err
		}
		names[k], writers[k] = sf.Name, w
	}
	return &structWriter{keys: memberKeys(names), fields: writers}, nil
}

// newExtensionWriter supports the extensions Doris sends; others (such as
// arrow.parquet.variant, which row-binlog tables reject) are refused rather
// than printed from an opaque storage layout.
func newExtensionWriter(t arrow.ExtensionType, path string) (writer, error) {
	switch t.ExtensionName() {
	case "arrow.uuid":
		return &extensionWriter{storage: &uuidWriter{}}, nil
	case "arrow.json":
		switch t.StorageType().ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			return &extensionWriter{storage: &jsonWriter{}}, nil
		}
	}
	return nil, unsupported(path, t)
}
