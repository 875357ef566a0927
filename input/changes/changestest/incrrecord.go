// Package changestest builds @incr result batches for the tests of package
// changes and its callers, which convert real batches without a Flight
// server.
package changestest

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
)

// IncrRow is one row of an IncrRecord batch: its binlog position and the
// id its body carries.
type IncrRow struct {
	TSO, LSN int64
	Op       int8
	ID       int64
}

// IncrRecord builds an @incr result batch as Doris sends it for a table of
// one column, id: that column, then the three hidden binlog columns. It is
// test support, for package changes' tests and its callers', which convert
// real batches without a Flight server; the caller releases the batch.
func IncrRecord(mem memory.Allocator, rows ...IncrRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: rowjson.ColumnTSO, Type: arrow.PrimitiveTypes.Int64},
		{Name: rowjson.ColumnLSN, Type: arrow.PrimitiveTypes.Int64},
		{Name: rowjson.ColumnOp, Type: arrow.PrimitiveTypes.Int8},
	}, nil))
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.ID)
		b.Field(1).(*array.Int64Builder).Append(r.TSO)
		b.Field(2).(*array.Int64Builder).Append(r.LSN)
		b.Field(3).(*array.Int8Builder).Append(r.Op)
	}
	return b.NewRecordBatch()
}
