package rowjson

import (
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Options tune a Converter.
type Options struct {
	// Binlog requires the hidden __DORIS_BINLOG_TSO__/LSN/OP columns, which
	// BinlogPos then reads. They are never part of the body either way.
	Binlog bool
	// Location is the wall clock for timestamps that carry a zone; nil means
	// the zone they carry, which is the session time_zone an older BE
	// converted the DATETIME's wall clock from, so the stored wall clock
	// comes back under any zone. Zoneless timestamps are Doris wall-clock
	// values and are never shifted.
	Location *time.Location
	// DatetimePrecision gives the DATETIME(p) scale per top-level column, when
	// known from the table schema; otherwise it follows the Arrow time unit.
	DatetimePrecision map[string]int
}

type bodyColumn struct {
	index int
	name  string
	key   []byte
	w     writer
}

// Converter writes rows of record batches that share one schema. It is not
// safe for concurrent use.
type Converter struct {
	schema *arrow.Schema
	cols   []bodyColumn
	names  []string
	binlog *binlogColumns
	rows   int
	bound  bool
}

// NewConverter builds the writers for schema.
func NewConverter(schema *arrow.Schema, opts Options) (*Converter, error) {
	if schema == nil {
		return nil, errors.New("rowjson: nil Arrow schema")
	}
	loc := opts.Location // nil: each timestamp's own zone
	hidden, err := findBinlogColumns(schema, opts.Binlog)
	if err != nil {
		return nil, err
	}
	c := &Converter{schema: schema, binlog: hidden}
	var names []string
	for i, f := range schema.Fields() {
		if isHiddenColumn(f.Name) {
			continue
		}
		prec, err := datetimePrecision(opts.DatetimePrecision, f.Name)
		if err != nil {
			return nil, err
		}
		w, err := newWriter(f, f.Name, writerConfig{loc: loc, prec: prec})
		if err != nil {
			return nil, err
		}
		c.cols = append(c.cols, bodyColumn{index: i, name: f.Name, w: w})
		names = append(names, f.Name)
	}
	for k, key := range memberKeys(names) {
		c.cols[k].key = key
	}
	c.names = names
	return c, nil
}

func datetimePrecision(m map[string]int, col string) (int, error) {
	p, ok := m[col]
	if !ok {
		return -1, nil
	}
	if p < 0 || p > 9 {
		return 0, fmt.Errorf("datetime precision for column %q is %d, want 0..9", col, p)
	}
	return p, nil
}

// Rows is the number of rows in the bound batch (0 before Bind).
func (c *Converter) Rows() int { return c.rows }

// Bind makes rec the batch that AppendRow and BinlogPos read. rec must have
// the converter's schema (same names and types; metadata may differ) and
// must stay alive, unreleased, for as long as rows are read from it.
func (c *Converter) Bind(rec arrow.RecordBatch) error {
	c.bound, c.rows = false, 0
	if rec == nil {
		return errors.New("rowjson: nil record batch")
	}
	if err := c.checkSchema(rec.Schema()); err != nil {
		return err
	}
	for _, col := range c.cols {
		if err := col.w.bind(rec.Column(col.index)); err != nil {
			return fmt.Errorf("binding column %q: %w", col.name, err)
		}
	}
	if c.binlog != nil {
		if err := c.binlog.bind(rec); err != nil {
			return err
		}
	}
	c.rows, c.bound = int(rec.NumRows()), true
	return nil
}

func (c *Converter) checkSchema(got *arrow.Schema) error {
	if got.NumFields() != c.schema.NumFields() {
		return fmt.Errorf("record batch has %d columns, the converter's schema has %d", got.NumFields(), c.schema.NumFields())
	}
	for i := 0; i < got.NumFields(); i++ {
		have, want := got.Field(i), c.schema.Field(i)
		if have.Name != want.Name || !arrow.TypeEqual(have.Type, want.Type) {
			return fmt.Errorf("record batch column %d is %q %s, the converter's schema has %q %s",
				i, have.Name, have.Type, want.Name, want.Type)
		}
	}
	return nil
}

func (c *Converter) checkRow(row int) error {
	if !c.bound {
		return errors.New("rowjson: no record batch bound")
	}
	if row < 0 || row >= c.rows {
		return fmt.Errorf("rowjson: row %d out of range [0, %d)", row, c.rows)
	}
	return nil
}

// AppendRow appends the JSON object of row's body columns to dst. On error
// dst is returned unchanged.
func (c *Converter) AppendRow(dst []byte, row int) (out []byte, err error) {
	if err := c.checkRow(row); err != nil {
		return dst, err
	}
	// Arrow data from the wire is not fully validated; inconsistent offsets
	// must fail this row, not crash the pipeline.
	defer func() {
		if r := recover(); r != nil {
			out, err = dst, fmt.Errorf("converting row %d: malformed Arrow data: %v", row, r)
		}
	}()
	b := append(dst, '{')
	for k := range c.cols {
		col := &c.cols[k]
		b = append(b, col.key...)
		b = col.w.write(b, row)
	}
	return append(b, '}'), nil
}
