package changes

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/rowjson"
	"github.com/rpconnect-doris/rpconnect-doris/input/schemameta"
)

const benchBatchRows = 4096

// benchTxn is how a binlog bench batch's rows fall into transactions.
type benchTxn int

const (
	smallTxns benchTxn = iota // a new TSO every 4 rows, one row per op
	bulkLoad                  // one TSO of inserts, as a stream load writes
)

// benchBase is when benchRecord's rows were created and committed.
var benchBase = time.Date(2025, 10, 9, 8, 53, 20, 0, time.UTC)

// benchRecord is a batch of the 12-column mixed table of the performance
// measurements, plus the @incr hidden columns when binlog is set.
func benchRecord(tb testing.TB, binlog bool, txn benchTxn) arrow.RecordBatch {
	tb.Helper()
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "status", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ratio", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true},
		{Name: "balance", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "created", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "active", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}
	if binlog {
		fields = append(fields,
			arrow.Field{Name: "__DORIS_BINLOG_TSO__", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "__DORIS_BINLOG_LSN__", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "__DORIS_BINLOG_OP__", Type: arrow.PrimitiveTypes.Int8})
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range benchBatchRows {
		b.Field(0).(*array.Int64Builder).Append(int64(i) + 1_000_000)
		b.Field(1).(*array.Int32Builder).Append(int32(i * 7919))
		b.Field(2).(*array.Int8Builder).Append(int8(i % 5))
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("customer-%06d", i*31%1_000_000))
		b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("order for \"%d\" — café", i))
		b.Field(5).(*array.Float64Builder).Append(float64(i) * 1.25)
		b.Field(6).(*array.Float32Builder).Append(float32(i%1000) / 1024)
		b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 12345))
		b.Field(8).(*array.Decimal128Builder).Append(decimal128.New(int64(i), uint64(i)*0x9e3779b97f4a7c15))
		b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp(benchBase.Add(time.Duration(i) * time.Second).UnixMicro()))
		b.Field(10).(*array.Date32Builder).Append(arrow.Date32(20000 + i%365))
		b.Field(11).(*array.BooleanBuilder).Append(i%2 == 0)
		if binlog {
			if txn == bulkLoad {
				b.Field(12).(*array.Int64Builder).Append(doris.Compose(benchBase.UnixMilli(), 0))
				b.Field(13).(*array.Int64Builder).Append(int64(i))
				b.Field(14).(*array.Int8Builder).Append(0)
			} else {
				b.Field(12).(*array.Int64Builder).Append(doris.Compose(benchBase.UnixMilli(), int64(i/4)))
				b.Field(13).(*array.Int64Builder).Append(int64(i % 4))
				b.Field(14).(*array.Int8Builder).Append(int8(i % 4))
			}
		}
	}
	return b.NewRecordBatch()
}

func benchConverter(tb testing.TB, binlog bool) (*Converter, arrow.RecordBatch) {
	return benchConverterOf(tb, binlog, smallTxns)
}

func benchConverterOf(tb testing.TB, binlog bool, txn benchTxn) (*Converter, arrow.RecordBatch) {
	tb.Helper()
	rec := benchRecord(tb, binlog, txn)
	meta, err := schemameta.New("shop", "orders", benchProps(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	resolve := func(*arrow.Schema) (*schemameta.Meta, error) { return meta, nil }
	rc := NewConverter(Table{DB: "shop", Name: "orders", Key: "shop.orders"}, rowjson.Options{Binlog: binlog}, resolve)
	if err := rc.Bind(rec); err != nil {
		tb.Fatal(err)
	}
	return rc, rec
}

// BenchmarkSnapshotMessage is the snapshot's per-row cost: JSON body plus
// message and metadata.
func BenchmarkSnapshotMessage(b *testing.B) {
	rc, rec := benchConverter(b, false)
	defer rec.Release()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := rc.SnapshotMessage(i % benchBatchRows); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBinlogMessage is the binlog's per-row cost: position, JSON body,
// message and its metadata (ten keys, two of them the shared schema values),
// for transactions of one row per op and for a bulk load's one transaction.
func BenchmarkBinlogMessage(b *testing.B) {
	for _, c := range []struct {
		name string
		txn  benchTxn
	}{{"small_txns", smallTxns}, {"bulk_load", bulkLoad}} {
		b.Run(c.name, func(b *testing.B) {
			rc, rec := benchConverterOf(b, true, c.txn)
			defer rec.Release()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				row := i % benchBatchRows
				pos, err := rc.binlogPos(row)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := rc.binlogMessage(row, pos); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchProps is the DDL view of benchRecord's table.
func benchProps() *doris.TableProperties {
	cols := []doris.ColumnDef{
		{Name: "id", Type: "bigint"}, {Name: "user_id", Type: "int"}, {Name: "status", Type: "tinyint"},
		{Name: "name", Type: "varchar(64)"}, {Name: "note", Type: "string"}, {Name: "score", Type: "double"},
		{Name: "ratio", Type: "float"}, {Name: "amount", Type: "decimal(18,2)"}, {Name: "balance", Type: "decimal(38,10)"},
		{Name: "created", Type: "datetime(6)"}, {Name: "day", Type: "date"}, {Name: "active", Type: "boolean"},
	}
	return &doris.TableProperties{KeysType: "UNIQUE_KEYS", KeyColumns: []string{"id"}, Columns: cols,
		Nullable: map[string]bool{"id": false}, MergeOnWrite: true}
}
