package input

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// splitSQL is the query that reads a split as p says.
func (p snapshotPlan) splitSQL(t *tableInfo, fields []string, filter string, tablets []int64) string {
	switch p.mode {
	case readAsOf:
		return doris.SnapshotSQLAsOf(t.name.db, t.name.table, fields, p.asOf, tablets, filter)
	case readCommitFiltered:
		return doris.SnapshotSQLWithCommitTSO(t.name.db, t.name.table, fields, tablets, filter)
	}
	return doris.SnapshotSQL(t.name.db, t.name.table, fields, tablets, filter)
}

// rowFilter is the filter of a split's rows, nil when every row is kept.
func (p snapshotPlan) rowFilter() *commitFilter {
	if p.mode != readCommitFiltered {
		return nil
	}
	return &commitFilter{asOf: p.asOf}
}

// commitFilter keeps the rows whose last write committed at or before
// asOf: a row written later (a key inserted or changed after it) comes
// from the binlog instead. It filters in the client, not in a WHERE that
// Doris would push down, because Doris prunes such predicates with the
// placeholder values of single-version rowsets (apache/doris#67995).
type commitFilter struct {
	asOf int64
	col  *array.Int64
}

// bind finds the commit TSO column of rec: the last of that name, since a
// `*` that shows hidden columns may hold it before the one selected.
func (f *commitFilter) bind(rec arrow.RecordBatch) error {
	if f == nil {
		return nil
	}
	idx := -1
	for i, field := range rec.Schema().Fields() {
		if strings.EqualFold(field.Name, doris.ColCommitTSO) {
			idx = i
		}
	}
	if idx < 0 {
		return fmt.Errorf("the snapshot rows have no %s column, which the query selected", doris.ColCommitTSO)
	}
	col, ok := rec.Column(idx).(*array.Int64)
	if !ok {
		return fmt.Errorf("column %s is %s, want BIGINT (Arrow int64)", doris.ColCommitTSO, rec.Column(idx).DataType())
	}
	f.col = col
	return nil
}

// keeps reports whether row i of the bound batch is in the snapshot. A
// NULL commit TSO (which Doris does not write) is kept: a row is never
// dropped on a value that does not say it is later.
func (f *commitFilter) keeps(i int) bool {
	if f == nil || f.col.IsNull(i) {
		return true
	}
	return f.col.Value(i) <= f.asOf
}
