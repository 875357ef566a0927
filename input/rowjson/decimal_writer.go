package rowjson

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// Decimals and LARGEINT are written as JSON strings: they exceed what a JSON
// number survives in most consumers (float64), and Doris prints them exactly.

type smallDecimalWriter[T decimal.Decimal32 | decimal.Decimal64] struct {
	validity
	values []T
	scale  int32
}

func (w *smallDecimalWriter[T]) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[T](arr, &w.validity, "decimal")
	return err
}

func (w *smallDecimalWriter[T]) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = appendInt64Decimal(dst, int64(w.values[i]), w.scale)
	return append(dst, '"')
}

type decimal128Writer struct {
	validity
	values []decimal128.Num
	scale  int32
}

func (w *decimal128Writer) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[decimal128.Num](arr, &w.validity, "decimal128")
	return err
}

func (w *decimal128Writer) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	v := w.values[i]
	dst = append(dst, '"')
	dst = appendDecimal(dst, limbs{v.LowBits(), uint64(v.HighBits())}, 2, w.scale)
	return append(dst, '"')
}

type decimal256Writer struct {
	validity
	values []decimal256.Num
	scale  int32
}

func (w *decimal256Writer) bind(arr arrow.Array) (err error) {
	w.values, err = bindValues[decimal256.Num](arr, &w.validity, "decimal256")
	return err
}

func (w *decimal256Writer) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = appendDecimal(dst, limbs(w.values[i].Array()), 4, w.scale)
	return append(dst, '"')
}

// largeIntBinaryWriter decodes the older LARGEINT encoding: 16 bytes of
// little-endian two's complement in a fixed_size_binary column.
type largeIntBinaryWriter struct {
	validity
	arr *array.FixedSizeBinary
}

func (w *largeIntBinaryWriter) bind(arr arrow.Array) error {
	a, ok := arr.(*array.FixedSizeBinary)
	if !ok {
		return bindError("fixed_size_binary", arr)
	}
	w.arr = a
	w.validity.set(arr)
	return nil
}

func (w *largeIntBinaryWriter) write(dst []byte, i int) []byte {
	if w.null(i) {
		return append(dst, "null"...)
	}
	l, n := limbsFromLE(w.arr.Value(i))
	dst = append(dst, '"')
	dst = appendDecimal(dst, l, n, 0)
	return append(dst, '"')
}
