package rowjson

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

type textArray interface{ Value(i int) string }

type bytesArray interface{ Value(i int) []byte }

// textSource reads utf8, large_utf8 and utf8_view values, with a concrete
// fast path for plain utf8, which is what Doris sends.
type textSource struct {
	validity
	str  *array.String
	text textArray
}

func (t *textSource) bind(arr arrow.Array) error {
	t.str, t.text = nil, nil
	switch a := arr.(type) {
	case *array.String:
		t.str = a
	case *array.LargeString:
		t.text = a
	case *array.StringView:
		t.text = a
	default:
		return bindError("string", arr)
	}
	t.validity.set(arr)
	return nil
}

func (t *textSource) value(i int) string {
	if t.str != nil {
		return t.str.Value(i)
	}
	return t.text.Value(i)
}

// stringWriter writes text columns (CHAR/VARCHAR/STRING, IPV6, v1 DATE and
// DATETIME, and the newer utf8 LARGEINT, which already holds the exact digits).
type stringWriter struct{ textSource }

func (w *stringWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	return appendString(dst, w.value(i))
}

// jsonWriter embeds Doris JSON columns as JSON values. Text that is not valid
// UTF-8 JSON (which Doris should never send) is kept as a JSON string instead,
// so that the message stays valid JSON and nothing is lost.
type jsonWriter struct{ textSource }

func (w *jsonWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	s := w.value(i)
	if b := unsafe.Slice(unsafe.StringData(s), len(s)); json.Valid(b) && utf8.Valid(b) {
		return append(dst, s...)
	}
	return appendString(dst, s)
}

// binaryWriter writes binary columns (HLL, BITMAP, VARBINARY, ...) as
// standard base64 strings, the encoding/json convention for []byte.
type binaryWriter struct {
	validity
	arr bytesArray
}

func (w *binaryWriter) bind(arr arrow.Array) error {
	switch a := arr.(type) {
	case *array.Binary:
		w.arr = a
	case *array.LargeBinary:
		w.arr = a
	case *array.BinaryView:
		w.arr = a
	case *array.FixedSizeBinary:
		w.arr = a
	default:
		return bindError("binary", arr)
	}
	w.validity.set(arr)
	return nil
}

func (w *binaryWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, w.arr.Value(i))
	return append(dst, '"')
}

// uuidWriter writes the arrow.uuid extension in its canonical 8-4-4-4-12 form.
type uuidWriter struct {
	validity
	arr *array.FixedSizeBinary
}

func (w *uuidWriter) bind(arr arrow.Array) error {
	a, ok := arr.(*array.FixedSizeBinary)
	if !ok || a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth != 16 {
		return bindError("fixed_size_binary(16) uuid storage", arr)
	}
	w.arr = a
	w.validity.set(arr)
	return nil
}

func (w *uuidWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	b := w.arr.Value(i)
	dst = append(dst, '"')
	for j, c := range b {
		if j == 4 || j == 6 || j == 8 || j == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xF])
	}
	return append(dst, '"')
}
