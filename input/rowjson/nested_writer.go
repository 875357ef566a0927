package rowjson

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

type listArray interface {
	arrow.Array
	ValueOffsets(i int) (start, end int64)
	ListValues() arrow.Array
}

// listWriter writes ARRAY<T> (list, large_list, fixed_size_list) as a JSON array.
type listWriter struct {
	validity
	arr  listArray
	elem writer
}

func (w *listWriter) bind(arr arrow.Array) error {
	a, ok := arr.(listArray)
	if !ok {
		return bindError("list", arr)
	}
	w.arr = a
	w.validity.set(arr)
	return w.elem.bind(a.ListValues())
}

func (w *listWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	start, end := w.arr.ValueOffsets(i)
	dst = append(dst, '[')
	for j := start; j < end; j++ {
		if j > start {
			dst = append(dst, ',')
		}
		dst = w.elem.write(dst, int(j))
	}
	return append(dst, ']')
}

// mapWriter writes MAP<K,V>. With scalar keys it is a JSON object whose member
// names are the keys' JSON text (strings as themselves, numbers, decimals and
// dates as their printed form); duplicate keys are kept in order, as Doris
// keeps them. Keys that are themselves nested values cannot be member names,
// so such maps become an array of {"key":k,"value":v} objects.
type mapWriter struct {
	validity
	arr        *array.Map
	key, value writer
	objectKeys bool
}

func (w *mapWriter) bind(arr arrow.Array) error {
	a, ok := arr.(*array.Map)
	if !ok {
		return bindError("map", arr)
	}
	entries, ok := a.ListValues().(*array.Struct)
	if !ok || entries.NumField() != 2 {
		return bindError("map entries struct", a.ListValues())
	}
	w.arr = a
	w.validity.set(arr)
	if err := w.key.bind(entries.Field(0)); err != nil {
		return err
	}
	return w.value.bind(entries.Field(1))
}

func (w *mapWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	start, end := w.arr.ValueOffsets(i)
	if !w.objectKeys {
		return w.writePairs(dst, start, end)
	}
	dst = append(dst, '{')
	for j := start; j < end; j++ {
		if j > start {
			dst = append(dst, ',')
		}
		dst = appendQuotedScalar(dst, w.key, int(j))
		dst = append(dst, ':')
		dst = w.value.write(dst, int(j))
	}
	return append(dst, '}')
}

func (w *mapWriter) writePairs(dst []byte, start, end int64) []byte {
	dst = append(dst, '[')
	for j := start; j < end; j++ {
		if j > start {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"key":`...)
		dst = w.key.write(dst, int(j))
		dst = append(dst, `,"value":`...)
		dst = w.value.write(dst, int(j))
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendQuotedScalar writes a scalar value as a JSON string: string-valued
// writers already quote; numbers, booleans and null are plain tokens that
// need no escaping, so quoting them is enough.
func appendQuotedScalar(dst []byte, w writer, i int) []byte {
	pos := len(dst)
	dst = w.write(dst, i)
	if len(dst) > pos && dst[pos] == '"' {
		return dst
	}
	dst = append(dst, 0)
	copy(dst[pos+1:], dst[pos:len(dst)-1])
	dst[pos] = '"'
	return append(dst, '"')
}

// structWriter writes STRUCT as a JSON object of its fields in order.
type structWriter struct {
	validity
	keys   [][]byte // `"name":`, with a leading comma after the first
	fields []writer
}

func (w *structWriter) bind(arr arrow.Array) error {
	a, ok := arr.(*array.Struct)
	if !ok || a.NumField() != len(w.fields) {
		return bindError("struct", arr)
	}
	w.validity.set(arr)
	for k, f := range w.fields {
		if err := f.bind(a.Field(k)); err != nil {
			return err
		}
	}
	return nil
}

func (w *structWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	for k, f := range w.fields {
		dst = append(dst, w.keys[k]...)
		dst = f.write(dst, i)
	}
	return append(dst, '}')
}

// dictionaryWriter decodes dictionary-encoded columns through their indices.
type dictionaryWriter struct {
	validity
	arr    *array.Dictionary
	values writer
}

func (w *dictionaryWriter) bind(arr arrow.Array) error {
	a, ok := arr.(*array.Dictionary)
	if !ok {
		return bindError("dictionary", arr)
	}
	w.arr = a
	w.validity.set(arr)
	return w.values.bind(a.Dictionary())
}

func (w *dictionaryWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	return w.values.write(dst, w.arr.GetValueIndex(i))
}

// extensionWriter writes an extension array through its storage array.
type extensionWriter struct{ storage writer }

func (w *extensionWriter) bind(arr arrow.Array) error {
	a, ok := arr.(array.ExtensionArray)
	if !ok {
		return bindError("extension", arr)
	}
	return w.storage.bind(a.Storage())
}

func (w *extensionWriter) write(dst []byte, i int) []byte { return w.storage.write(dst, i) }

// memberKeys precomputes the `"name":` prefixes of object members.
func memberKeys(names []string) [][]byte {
	keys := make([][]byte, len(names))
	for k, n := range names {
		var b []byte
		if k > 0 {
			b = append(b, ',')
		}
		b = appendString(b, n)
		keys[k] = append(b, ':')
	}
	return keys
}
