package rowjson

import (
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func binlogFields(tso, lsn, op arrow.DataType) []arrow.Field {
	return []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "__DORIS_BINLOG_TSO__", Type: tso, Nullable: true},
		{Name: "__doris_binlog_lsn__", Type: lsn, Nullable: true},
		{Name: "__Doris_Binlog_Op__", Type: op, Nullable: true},
	}
}

func TestBinlogColumnsStandard(t *testing.T) {
	rec := buildRecord(t, binlogFields(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int8), func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
		b.Field(1).(*array.Int64Builder).AppendValues([]int64{461373440032243713, 461373440032243714}, nil)
		b.Field(2).(*array.Int64Builder).AppendValues([]int64{0, 7}, nil)
		b.Field(3).(*array.Int8Builder).AppendValues([]int8{0, 3}, nil)
	})
	c, err := NewConverter(rec.Schema(), Options{Binlog: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(rec); err != nil {
		t.Fatal(err)
	}
	tso, lsn, op, err := c.BinlogPos(1)
	if err != nil || tso != 461373440032243714 || lsn != 7 || op != 3 {
		t.Fatalf("BinlogPos(1) = %d %d %d %v", tso, lsn, op, err)
	}
	row, err := c.AppendRow(nil, 0)
	if err != nil || string(row) != `{"id":1}` {
		t.Fatalf("AppendRow = %s %v, hidden columns must stay out of the body", row, err)
	}
	// Without Options.Binlog the hidden columns are still left out.
	expectRows(t, convertAll(t, rec, Options{}), `{"id":1}`, `{"id":2}`)
}

func TestBinlogColumnVariants(t *testing.T) {
	fields := binlogFields(arrow.PrimitiveTypes.Uint64, &arrow.FixedSizeBinaryType{ByteWidth: 16}, arrow.BinaryTypes.String)
	fields[2].Metadata = meta("LARGEINT")
	rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int32Builder).Append(1)
		b.Field(1).(*array.Uint64Builder).Append(461373440032243713)
		b.Field(2).(*array.FixedSizeBinaryBuilder).Append(leBytes16(big.NewInt(12)))
		b.Field(3).(*array.StringBuilder).Append("2")
	})
	c, err := NewConverter(rec.Schema(), Options{Binlog: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(rec); err != nil {
		t.Fatal(err)
	}
	tso, lsn, op, err := c.BinlogPos(0)
	if err != nil || tso != 461373440032243713 || lsn != 12 || op != 2 {
		t.Fatalf("BinlogPos = %d %d %d %v", tso, lsn, op, err)
	}

	// LSN as a utf8 LARGEINT string, OP as BIGINT.
	rec2 := buildRecord(t, binlogFields(arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int32Builder).Append(1)
		b.Field(1).(*array.Int64Builder).Append(5)
		b.Field(2).(*array.StringBuilder).Append("99")
		b.Field(3).(*array.Int64Builder).Append(1)
	})
	c2, err := NewConverter(rec2.Schema(), Options{Binlog: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.Bind(rec2); err != nil {
		t.Fatal(err)
	}
	if tso, lsn, op, err := c2.BinlogPos(0); err != nil || tso != 5 || lsn != 99 || op != 1 {
		t.Fatalf("BinlogPos = %d %d %d %v", tso, lsn, op, err)
	}
}

func TestBinlogErrors(t *testing.T) {
	rec := buildRecord(t, binlogFields(arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2, 3, 4, 5}, nil)
		b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 0, 1, 1, 1}, []bool{true, false, true, true, true})
		b.Field(2).(*array.StringBuilder).AppendValues([]string{"1", "1", "", "x", "1"}, []bool{true, true, false, true, true})
		b.Field(3).(*array.Int32Builder).AppendValues([]int32{4, 0, 0, 0, -1}, nil)
	})
	c, err := NewConverter(rec.Schema(), Options{Binlog: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(rec); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Unsupported Doris binlog operation: 4",
		"Doris row-binlog field __DORIS_BINLOG_TSO__ cannot be null",
		"Doris row-binlog field __DORIS_BINLOG_LSN__ cannot be null",
		`Doris row-binlog field __DORIS_BINLOG_LSN__: value "x" is not a BIGINT decimal string`,
		"Unsupported Doris binlog operation: -1",
	}
	for row, w := range want {
		if _, _, _, err := c.BinlogPos(row); err == nil || err.Error() != w {
			t.Errorf("row %d: err = %v, want %q", row, err, w)
		}
	}
	if _, _, _, err := c.BinlogPos(5); err == nil {
		t.Error("row out of range accepted")
	}
}

func TestBinlogSchemaErrors(t *testing.T) {
	full := binlogFields(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int8)
	for k, name := range []string{ColumnTSO, ColumnLSN, ColumnOp} {
		fields := append(append([]arrow.Field{}, full[:k+1]...), full[k+2:]...)
		_, err := NewConverter(arrow.NewSchema(fields, nil), Options{Binlog: true})
		if want := "Arrow schema from Doris is missing binlog column " + name; err == nil || err.Error() != want {
			t.Errorf("without %s: err = %v, want %q", name, err, want)
		}
	}
	bad := binlogFields(arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int8)
	if _, err := NewConverter(arrow.NewSchema(bad, nil), Options{Binlog: true}); err == nil || !strings.Contains(err.Error(), ColumnTSO) {
		t.Errorf("boolean TSO: err = %v", err)
	}
	dup := append(full, arrow.Field{Name: "__doris_binlog_op__", Type: arrow.PrimitiveTypes.Int8})
	if _, err := NewConverter(arrow.NewSchema(dup, nil), Options{Binlog: true}); err == nil {
		t.Error("duplicate OP column accepted")
	}
	c, err := NewConverter(arrow.NewSchema(full[:1], nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.BinlogPos(0); err == nil {
		t.Error("BinlogPos without Options.Binlog succeeded")
	}
}

func TestBindChecksSchemaAndRows(t *testing.T) {
	a := buildRecord(t, []arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).Append(1)
	})
	b := buildRecord(t, []arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int32Builder).Append(1)
	})
	c, err := NewConverter(a.Schema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppendRow(nil, 0); err == nil {
		t.Error("AppendRow before Bind succeeded")
	}
	if err := c.Bind(b); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("Bind with another type: err = %v", err)
	}
	if err := c.Bind(a); err != nil {
		t.Fatal(err)
	}
	dst := []byte("prefix")
	out, err := c.AppendRow(dst, 1)
	if err == nil || string(out) != "prefix" {
		t.Errorf("AppendRow out of range = %q, %v", out, err)
	}
	out, err = c.AppendRow(dst, 0)
	if err != nil || string(out) != `prefix{"x":1}` {
		t.Errorf("AppendRow = %q, %v", out, err)
	}
}
