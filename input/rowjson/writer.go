package rowjson

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// writer appends one value of a bound Arrow array as JSON. Writers are chosen
// once per schema in NewConverter; bind swaps in each batch's typed array so
// that the per-row path never goes through interfaces to reach values.
type writer interface {
	bind(arr arrow.Array) error
	write(dst []byte, i int) []byte
}

// validity answers IsNull straight from the validity bitmap.
type validity struct {
	bitmap []byte
	offset int
	any    bool
}

func (v *validity) set(arr arrow.Array) {
	v.bitmap = arr.NullBitmapBytes()
	v.offset = arr.Data().Offset()
	v.any = arr.NullN() > 0 && len(v.bitmap) > 0
}

func (v *validity) null(i int) bool {
	if !v.any {
		return false
	}
	j := i + v.offset
	return v.bitmap[j>>3]&(1<<(j&7)) == 0
}

// bindError reports a batch column whose concrete array does not match the
// type the converter was built for.
func bindError(want string, arr arrow.Array) error {
	return fmt.Errorf("expected %s array, got %T (%s)", want, arr, arr.DataType())
}

// nullWriter serves the Arrow null type: every value is null.
type nullWriter struct{}

func (nullWriter) bind(arrow.Array) error         { return nil }
func (nullWriter) write(dst []byte, _ int) []byte { return append(dst, "null"...) }
