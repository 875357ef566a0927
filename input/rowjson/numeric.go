package rowjson

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

type valuesArray[T any] interface{ Values() []T }

// bindValues takes the typed value slice of arr, checked once per batch.
func bindValues[T any](arr arrow.Array, v *validity, want string) ([]T, error) {
	a, ok := arr.(valuesArray[T])
	if !ok {
		return nil, bindError(want, arr)
	}
	v.set(arr)
	return a.Values(), nil
}

type intWriter[T int8 | int16 | int32 | int64] struct {
	validity
	values []T
}

func (w *intWriter[T]) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[T](arr, &w.validity, "signed integer")
	return err
}

func (w *intWriter[T]) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, int64(w.values[i]), 10)
}

type uintWriter[T uint8 | uint16 | uint32 | uint64] struct {
	validity
	values []T
}

func (w *uintWriter[T]) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[T](arr, &w.validity, "unsigned integer")
	return err
}

func (w *uintWriter[T]) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	return strconv.AppendUint(dst, uint64(w.values[i]), 10)
}

type floatWriter[T float32 | float64] struct {
	validity
	values  []T
	bitSize int
}

func (w *floatWriter[T]) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[T](arr, &w.validity, "floating point")
	return err
}

func (w *floatWriter[T]) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	return appendFloat(dst, float64(w.values[i]), w.bitSize)
}

type float16Writer struct {
	validity
	values []float16.Num
}

func (w *float16Writer) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[float16.Num](arr, &w.validity, "float16")
	return err
}

func (w *float16Writer) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	return appendFloat(dst, float64(w.values[i].Float32()), 32)
}

// appendFloat formats like encoding/json (shortest round-trip digits,
// exponent only outside [1e-6, 1e21)). JSON has no NaN or infinity, so those
// become null rather than an invalid or lossy document; Doris only produces
// them from arithmetic on FLOAT/DOUBLE columns.
func appendFloat(dst []byte, f float64, bitSize int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bitSize)
	if format == 'e' {
		// Shorten e-09 to e-9, as encoding/json does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

type boolWriter struct {
	validity
	arr *array.Boolean
}

func (w *boolWriter) bind(arr arrow.Array) error {
	a, ok := arr.(*array.Boolean)
	if !ok {
		return bindError("boolean", arr)
	}
	w.arr = a
	w.validity.set(arr)
	return nil
}

func (w *boolWriter) write(dst []byte, i int) []byte {
	switch {
	case w.null(i):
		return append(dst, "null"...)
	case w.arr.Value(i):
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// ipv4Writer renders Doris IPV4 (an int32 or uint32 holding the address in
// host order) as the dotted quad Doris prints, not as an opaque number.
type ipv4Writer[T int32 | uint32] struct {
	validity
	values []T
}

func (w *ipv4Writer[T]) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[T](arr, &w.validity, "IPV4 integer")
	return err
}

func (w *ipv4Writer[T]) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	v := uint32(w.values[i])
	dst = append(dst, '"')
	dst = strconv.AppendUint(dst, uint64(v>>24), 10)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, uint64(v>>16&0xFF), 10)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, uint64(v>>8&0xFF), 10)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, uint64(v&0xFF), 10)
	return append(dst, '"')
}
