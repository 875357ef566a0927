package rowjson

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Hidden @incr columns, in the order Doris appends them.
const (
	ColumnTSO = "__DORIS_BINLOG_TSO__"
	ColumnLSN = "__DORIS_BINLOG_LSN__"
	ColumnOp  = "__DORIS_BINLOG_OP__"
)

var binlogColumnNames = [3]string{ColumnTSO, ColumnLSN, ColumnOp}

// isHiddenColumn tells Doris's hidden columns (the binlog's, and those a
// session with show_hidden_columns gives a snapshot read, such as
// __DORIS_COMMIT_TSO_COL__): never part of a body.
func isHiddenColumn(name string) bool {
	return len(name) >= len(hiddenPrefix) && strings.EqualFold(name[:len(hiddenPrefix)], hiddenPrefix)
}

const hiddenPrefix = "__DORIS_"

func isBinlogColumn(name string) bool {
	for _, n := range binlogColumnNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// binlogColumns reads TSO, LSN and OP, in that order.
type binlogColumns struct {
	index   [3]int
	readers [3]posReader
}

func findBinlogColumns(schema *arrow.Schema, required bool) (*binlogColumns, error) {
	if !required {
		return nil, nil
	}
	b := &binlogColumns{index: [3]int{-1, -1, -1}}
	for i, f := range schema.Fields() {
		for k, n := range binlogColumnNames {
			if !strings.EqualFold(f.Name, n) {
				continue
			}
			if b.index[k] >= 0 {
				return nil, fmt.Errorf("Arrow schema from Doris has binlog column %s twice", n)
			}
			r, err := newPosReader(f.Type)
			if err != nil {
				return nil, fmt.Errorf("Doris row-binlog field %s: %w", n, err)
			}
			b.index[k], b.readers[k] = i, r
		}
	}
	for k, n := range binlogColumnNames {
		if b.index[k] < 0 {
			return nil, fmt.Errorf("Arrow schema from Doris is missing binlog column %s", n)
		}
	}
	return b, nil
}

func (b *binlogColumns) bind(rec arrow.RecordBatch) error {
	for k, r := range b.readers {
		if err := r.bind(rec.Column(b.index[k])); err != nil {
			return fmt.Errorf("binding Doris row-binlog field %s: %w", binlogColumnNames[k], err)
		}
	}
	return nil
}

func (b *binlogColumns) read(k, row int) (int64, error) {
	v, null, err := b.readers[k].value(row)
	switch {
	case err != nil:
		return 0, fmt.Errorf("Doris row-binlog field %s: %w", binlogColumnNames[k], err)
	case null:
		return 0, fmt.Errorf("Doris row-binlog field %s cannot be null", binlogColumnNames[k])
	}
	return v, nil
}

// BinlogPos reads the (TSO, LSN, OP) position of row. It needs Options.Binlog.
func (c *Converter) BinlogPos(row int) (tso, lsn int64, op int8, err error) {
	if c.binlog == nil {
		return 0, 0, 0, errors.New("rowjson: converter was built without Options.Binlog")
	}
	if err := c.checkRow(row); err != nil {
		return 0, 0, 0, err
	}
	if tso, err = c.binlog.read(0, row); err != nil {
		return 0, 0, 0, err
	}
	if lsn, err = c.binlog.read(1, row); err != nil {
		return 0, 0, 0, err
	}
	o, err := c.binlog.read(2, row)
	if err != nil {
		return 0, 0, 0, err
	}
	if o < 0 || o > 3 {
		return 0, 0, 0, fmt.Errorf("Unsupported Doris binlog operation: %d", o)
	}
	return tso, lsn, int8(o), nil
}

// posReader reads a hidden column as int64 whatever integer encoding the BE
// chose (some BE code declares LSN as LARGEINT and OP as BIGINT).
type posReader interface {
	bind(arr arrow.Array) error
	value(i int) (v int64, null bool, err error)
}

func newPosReader(t arrow.DataType) (posReader, error) {
	switch t.ID() {
	case arrow.INT8:
		return &signedPos[int8]{}, nil
	case arrow.INT16:
		return &signedPos[int16]{}, nil
	case arrow.INT32:
		return &signedPos[int32]{}, nil
	case arrow.INT64:
		return &signedPos[int64]{}, nil
	case arrow.UINT8:
		return &unsignedPos[uint8]{}, nil
	case arrow.UINT16:
		return &unsignedPos[uint16]{}, nil
	case arrow.UINT32:
		return &unsignedPos[uint32]{}, nil
	case arrow.UINT64:
		return &unsignedPos[uint64]{}, nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return &textPos{}, nil
	case arrow.FIXED_SIZE_BINARY:
		if w := t.(*arrow.FixedSizeBinaryType).ByteWidth; w >= 1 && w <= 32 {
			return &largeIntPos{}, nil
		}
	}
	return nil, fmt.Errorf("unsupported Arrow type %s, want an integer or a decimal string", t)
}

type signedPos[T int8 | int16 | int32 | int64] struct {
	validity
	values []T
}

func (r *signedPos[T]) bind(arr arrow.Array) (err error) {
	r.values, err = bindValues[T](arr, &r.validity, "signed integer")
	return err
}

func (r *signedPos[T]) value(i int) (int64, bool, error) {
	return int64(r.values[i]), r.null(i), nil
}

type unsignedPos[T uint8 | uint16 | uint32 | uint64] struct {
	validity
	values []T
}

func (r *unsignedPos[T]) bind(arr arrow.Array) (err error) {
	r.values, err = bindValues[T](arr, &r.validity, "unsigned integer")
	return err
}

func (r *unsignedPos[T]) value(i int) (int64, bool, error) {
	if r.null(i) {
		return 0, true, nil
	}
	v := uint64(r.values[i])
	if v > math.MaxInt64 {
		return 0, false, fmt.Errorf("value %d does not fit in BIGINT", v)
	}
	return int64(v), false, nil
}

type textPos struct{ textSource }

func (r *textPos) value(i int) (int64, bool, error) {
	if r.null(i) {
		return 0, true, nil
	}
	s := r.textSource.value(i)
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("value %q is not a BIGINT decimal string", s)
	}
	return v, false, nil
}

type largeIntPos struct {
	validity
	arr *array.FixedSizeBinary
}

func (r *largeIntPos) bind(arr arrow.Array) error {
	a, ok := arr.(*array.FixedSizeBinary)
	if !ok {
		return bindError("fixed_size_binary", arr)
	}
	r.arr = a
	r.validity.set(arr)
	return nil
}

func (r *largeIntPos) value(i int) (int64, bool, error) {
	if r.null(i) {
		return 0, true, nil
	}
	l, n := limbsFromLE(r.arr.Value(i))
	v := int64(l[0])
	ext := uint64(v >> 63)
	for j := 1; j < n; j++ {
		if l[j] != ext {
			var buf [maxDecimalDigits]byte
			return 0, false, fmt.Errorf("LARGEINT value %s does not fit in BIGINT", appendDecimal(buf[:0], l, n, 0))
		}
	}
	return v, false, nil
}
