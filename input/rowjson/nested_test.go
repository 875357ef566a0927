package rowjson

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestListOfStructOfMap(t *testing.T) {
	mapType := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
	structType := arrow.StructOf(
		arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "tags", Type: mapType, Nullable: true},
	)
	fields := []arrow.Field{{Name: "items", Type: arrow.ListOf(structType), Nullable: true}}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		lb := b.Field(0).(*array.ListBuilder)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		idb := sb.FieldBuilder(0).(*array.Int64Builder)
		mb := sb.FieldBuilder(1).(*array.MapBuilder)
		kb := mb.KeyBuilder().(*array.StringBuilder)
		ib := mb.ItemBuilder().(*array.Int32Builder)

		lb.Append(true) // row 0: two structs
		sb.Append(true)
		idb.Append(1)
		mb.Append(true)
		kb.Append("a\"b")
		ib.Append(1)
		kb.Append("c")
		ib.AppendNull()
		sb.Append(true)
		idb.AppendNull()
		mb.AppendNull()

		lb.Append(true) // row 1: empty list
		lb.AppendNull() // row 2: null list

		lb.Append(true) // row 3: a null struct and an empty map
		sb.AppendNull() // also appends nulls to the field builders
		sb.Append(true)
		idb.Append(2)
		mb.Append(true)
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"items":[{"id":1,"tags":{"a\"b":1,"c":null}},{"id":null,"tags":null}]}`,
		`{"items":[]}`,
		`{"items":null}`,
		`{"items":[null,{"id":2,"tags":{}}]}`,
	)
}

func TestMapKeyRendering(t *testing.T) {
	fields := []arrow.Field{
		{Name: "by_int", Type: arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)},
		{Name: "by_dec", Type: arrow.MapOf(&arrow.Decimal128Type{Precision: 5, Scale: 2}, arrow.FixedWidthTypes.Boolean)},
		{Name: "by_list", Type: arrow.MapOf(arrow.ListOf(arrow.PrimitiveTypes.Int8), arrow.PrimitiveTypes.Int8)},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		m0 := b.Field(0).(*array.MapBuilder)
		m0.Append(true)
		m0.KeyBuilder().(*array.Int32Builder).AppendValues([]int32{-7, 3}, nil)
		m0.ItemBuilder().(*array.StringBuilder).AppendValues([]string{"x", "y"}, nil)
		m1 := b.Field(1).(*array.MapBuilder)
		m1.Append(true)
		m1.KeyBuilder().(*array.Decimal128Builder).Append(decimal128.FromI64(150))
		m1.ItemBuilder().(*array.BooleanBuilder).Append(true)
		m2 := b.Field(2).(*array.MapBuilder)
		m2.Append(true)
		kl := m2.KeyBuilder().(*array.ListBuilder)
		kl.Append(true)
		kl.ValueBuilder().(*array.Int8Builder).AppendValues([]int8{1, 2}, nil)
		m2.ItemBuilder().(*array.Int8Builder).Append(9)
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"by_int":{"-7":"x","3":"y"},"by_dec":{"1.50":true},"by_list":[{"key":[1,2],"value":9}]}`)
}

func TestDictionaryLargeAndFixedLists(t *testing.T) {
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	fields := []arrow.Field{
		{Name: "dict", Type: dictType, Nullable: true},
		{Name: "large", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Int16), Nullable: true},
		{Name: "fixed", Type: arrow.FixedSizeListOf(2, arrow.BinaryTypes.LargeString), Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		db := b.Field(0).(*array.BinaryDictionaryBuilder)
		if err := db.AppendString("red"); err != nil {
			t.Fatal(err)
		}
		db.AppendNull()
		if err := db.AppendString("red"); err != nil {
			t.Fatal(err)
		}
		ll := b.Field(1).(*array.LargeListBuilder)
		for r := 0; r < 3; r++ {
			ll.Append(true)
			ll.ValueBuilder().(*array.Int16Builder).AppendValues([]int16{int16(r), -1}[:r%3], nil)
		}
		fl := b.Field(2).(*array.FixedSizeListBuilder)
		vb := fl.ValueBuilder().(*array.LargeStringBuilder)
		fl.Append(true)
		vb.AppendValues([]string{"a", "b"}, nil)
		fl.AppendNull() // also appends null values to the child
		fl.Append(true)
		vb.AppendValues([]string{"c", ""}, []bool{true, false})
	})
	expectRows(t, convertAll(t, rec, Options{}),
		`{"dict":"red","large":[],"fixed":["a","b"]}`,
		`{"dict":null,"large":[1],"fixed":null}`,
		`{"dict":"red","large":[2,-1],"fixed":["c",null]}`,
	)
}

func TestSlicedRecordUsesOffsets(t *testing.T) {
	fields := []arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		sb := b.Field(1).(*array.StructBuilder)
		for i := 0; i < 10; i++ {
			if i%3 == 0 {
				b.Field(0).AppendNull()
				sb.AppendNull()
				continue
			}
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append(string(rune('a' + i)))
		}
	})
	slice := rec.NewSlice(5, 8)
	defer slice.Release()
	expectRows(t, convertAll(t, slice, Options{}),
		`{"i":5,"s":{"x":"f"}}`, `{"i":null,"s":null}`, `{"i":7,"s":{"x":"h"}}`)
}

// uuidType is a stand-in for arrow-go's arrow.uuid extension, whose package
// pulls in parquet dependencies this module does not carry.
type uuidType struct{ arrow.ExtensionBase }

type uuidArray struct{ array.ExtensionArrayBase }

func (*uuidType) ExtensionName() string   { return "arrow.uuid" }
func (*uuidType) ArrayType() reflect.Type { return reflect.TypeOf(uuidArray{}) }
func (*uuidType) Serialize() string       { return "" }
func (t *uuidType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == t.ExtensionName()
}
func (*uuidType) Deserialize(arrow.DataType, string) (arrow.ExtensionType, error) {
	return newUUIDType(), nil
}

func newUUIDType() *uuidType {
	return &uuidType{arrow.ExtensionBase{Storage: &arrow.FixedSizeBinaryType{ByteWidth: 16}}}
}

var testUUID = [16]byte{0x0f, 0x8f, 0xad, 0x5b, 0xd9, 0xcb, 0x46, 0x9f, 0xa1, 0x65, 0x70, 0x86, 0x77, 0x28, 0x95, 0x0e}

func uuidStorage(t *testing.T) arrow.Array {
	b := array.NewFixedSizeBinaryBuilder(memory.DefaultAllocator, &arrow.FixedSizeBinaryType{ByteWidth: 16})
	defer b.Release()
	b.Append(testUUID[:])
	b.AppendNull()
	arr := b.NewArray()
	t.Cleanup(arr.Release)
	return arr
}

func TestUUIDExtension(t *testing.T) {
	typ := newUUIDType()
	ext := array.NewExtensionArrayWithStorage(typ, uuidStorage(t))
	defer ext.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "u", Type: typ, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{ext}, 2)
	defer rec.Release()
	expectRows(t, convertAll(t, rec, Options{}), `{"u":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, `{"u":null}`)
}

// TestUnregisteredUUIDExtension covers the IPC form of an extension the
// reader does not know: plain storage plus the extension name in metadata.
func TestUnregisteredUUIDExtension(t *testing.T) {
	md := arrow.NewMetadata([]string{"ARROW:extension:name"}, []string{"arrow.uuid"})
	schema := arrow.NewSchema([]arrow.Field{{Name: "u", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}, Nullable: true, Metadata: md}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{uuidStorage(t)}, 2)
	defer rec.Release()
	expectRows(t, convertAll(t, rec, Options{}), `{"u":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, `{"u":null}`)
}

type otherExtType struct{ arrow.ExtensionBase }

func (*otherExtType) ExtensionName() string   { return "arrow.parquet.variant" }
func (*otherExtType) ArrayType() reflect.Type { return reflect.TypeOf(uuidArray{}) }
func (*otherExtType) Serialize() string       { return "" }
func (t *otherExtType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == t.ExtensionName()
}
func (t *otherExtType) Deserialize(arrow.DataType, string) (arrow.ExtensionType, error) {
	return t, nil
}

func TestUnknownExtensionRejected(t *testing.T) {
	typ := &otherExtType{arrow.ExtensionBase{Storage: arrow.BinaryTypes.Binary}}
	_, err := NewConverter(arrow.NewSchema([]arrow.Field{{Name: "v", Type: typ}}, nil), Options{})
	if err == nil || !strings.Contains(err.Error(), `column "v"`) {
		t.Fatalf("err = %v, want an unsupported-type error naming v", err)
	}
}

func TestJSONExtensionMetadataEmbedded(t *testing.T) {
	md := arrow.NewMetadata([]string{"ARROW:extension:name"}, []string{"arrow.json"})
	fields := []arrow.Field{{Name: "j", Type: arrow.BinaryTypes.String, Metadata: md}}
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		b.Field(0).(*array.StringBuilder).AppendValues([]string{`{"k":[true]}`, `not json`}, nil)
	})
	expectRows(t, convertAll(t, rec, Options{}), `{"j":{"k":[true]}}`, `{"j":"not json"}`)
}
