package storage

import (
	"fmt"
	"strings"
)

// DeleteSignColumn is the hidden stream-load column whose value 1 deletes
// the row's key on UNIQUE tables.
const DeleteSignColumn = "__DORIS_DELETE_SIGN__"

// Stream load merge types.
const (
	MergeAppend = "APPEND"
	MergeDelete = "DELETE"
	MergeMerge  = "MERGE"
)

// LoadRequest is one stream load: text values aligned with Columns.
type LoadRequest struct {
	Label          string
	Columns        []string    // target columns; may include __DORIS_DELETE_SIGN__
	Rows           [][]*string // text values as loaded (nil = NULL), aligned with Columns
	PartialColumns bool
	MergeType      string // APPEND (default), DELETE, MERGE
	TwoPhaseCommit bool   // pre-commit only; _stream_load_2pc commits or aborts
	// SequenceSource is the function_column.sequence_col header. Only the
	// table-property mapping form is modelled, which ignores it; a table
	// without a sequence column refuses it.
	SequenceSource string
	// MaxFilterRatio is the max_filter_ratio header; FilteredRows counts
	// rows the front end already filtered. Storage judges them with the rows
	// that fit no partition against the ratio (loadFiltered), the only
	// place the ratio is checked.
	MaxFilterRatio float64
	FilteredRows   int64
}

// LoadResult reports a committed (or pre-committed) load.
type LoadResult struct {
	TxnID            int64
	Loaded, Filtered int64
	TSO              TSO // zero while pre-committed
	// Rejected holds the error-log lines of the rows storage filtered (rows
	// that fit no partition), also when the filtering failed the load.
	Rejected []string
}

// loadPlan maps load columns onto table columns.
type loadPlan struct {
	cols     []Column
	target   []int // table column index per load column, -1 for the delete sign
	set      []bool
	mergeTyp string
	defaults []any // per table column, evaluated once at the load's time
}

func planLoad(t *table, cols []Column, req LoadRequest) (*loadPlan, error) {
	mt := strings.ToUpper(strings.TrimSpace(req.MergeType))
	if mt == "" {
		mt = MergeAppend
	}
	if mt != MergeAppend && mt != MergeDelete && mt != MergeMerge {
		return nil, errorf("Invalid merge type %s, should be APPEND, DELETE or MERGE", req.MergeType)
	}
	p := &loadPlan{cols: cols, set: make([]bool, len(cols)), mergeTyp: mt}
	names := req.Columns
	if len(names) == 0 {
		for _, c := range cols {
			names = append(names, c.Name)
		}
	}
	hasSign := false
	for _, n := range names {
		idx, err := loadTarget(t, n)
		if err != nil {
			return nil, err
		}
		if idx < 0 {
			hasSign = true
		} else {
			p.set[idx] = true
		}
		p.target = append(p.target, idx)
	}
	if (mt != MergeAppend || hasSign) && t.def.Keys != UniqueKeys {
		return nil, errorf("load by MERGE or DELETE is only supported in unique tables.")
	}
	if err := checkLoadSequence(t, p.set, req); err != nil {
		return nil, err
	}
	return p, p.checkColumns(t, req.PartialColumns)
}

func loadTarget(t *table, name string) (int, error) {
	if strings.EqualFold(name, DeleteSignColumn) {
		return -1, nil
	}
	idx := t.colIndex(name)
	if idx < 0 {
		return 0, errorf("Unknown column '%s' in table %s", name, t.def.Name)
	}
	return idx, nil
}

// checkColumns enforces key coverage for partial updates and NOT NULL
// columns without defaults for full-row loads.
func (p *loadPlan) checkColumns(t *table, partial bool) error {
	if partial {
		if t.def.Keys != UniqueKeys || !t.mow {
			return errorf("Partial update is only allowed on unique table with merge-on-write enabled.")
		}
		for _, i := range t.keyIdx {
			if !p.set[i] {
				return errorf("Partial update should include all key columns, missing: %s", p.cols[i].Name)
			}
		}
		return nil
	}
	for i, c := range p.cols {
		if !p.set[i] && !c.Nullable && c.Default == nil {
			return errorf("Column has no default value. column: %s", c.Name)
		}
	}
	p.set = nil
	return nil
}

// rowOp converts one text row into a staged op.
func (p *loadPlan) rowOp(t *table, raw []*string) (op, error) {
	if len(raw) != len(p.target) {
		return op{}, fmt.Errorf("actual column number %d is not equal to schema column number %d", len(raw), len(p.target))
	}
	row := make([]any, len(p.cols))
	copy(row, p.defaults)
	del := p.mergeTyp == MergeDelete
	for i, idx := range p.target {
		if idx < 0 {
			sign, err := parseDeleteSign(raw[i])
			if err != nil {
				return op{}, err
			}
			del = del || sign
			continue
		}
		v, err := loadValue(p.cols[idx], raw[i])
		if err != nil {
			return op{}, err
		}
		row[idx] = v
	}
	if del {
		return op{del: true, row: row}, nil
	}
	for i, c := range p.cols {
		if row[i] == nil && !c.Nullable && (p.set == nil || p.set[i]) {
			return op{}, fmt.Errorf("null value for not null column, column=%s", c.Name)
		}
	}
	return op{row: row, cols: p.set}, nil
}

func loadValue(c Column, raw *string) (any, error) {
	if raw == nil {
		return nil, nil
	}
	v, err := ParseValue(c.Type, *raw)
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", c.Name, err)
	}
	return v, nil
}

func parseDeleteSign(raw *string) (bool, error) {
	if raw == nil {
		return false, nil
	}
	switch strings.TrimSpace(*raw) {
	case "0", "":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("invalid %s value %q", DeleteSignColumn, *raw)
}
