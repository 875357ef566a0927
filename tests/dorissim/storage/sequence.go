package storage

import "strings"

// Sequence column properties (Doris "sequence column" of UNIQUE tables).
const (
	propSequenceCol  = "function_column.sequence_col"
	propSequenceType = "function_column.sequence_type"
)

// checkSequence validates the sequence properties as CREATE TABLE does. The
// mapping form names a table column whose value orders writes of one key;
// the hidden __DORIS_SEQUENCE_COL__ form (sequence_type) is not modelled
// and refused with a clear error rather than silently ignored.
func checkSequence(t *table) error {
	col, hasCol := t.def.Properties[propSequenceCol]
	_, hasType := t.def.Properties[propSequenceType]
	if !hasCol && !hasType {
		return nil
	}
	if t.def.Keys != UniqueKeys {
		return errorf("sequence column only support UNIQUE_KEYS")
	}
	if hasCol && hasType {
		return errorf("The sequence_col and sequence_type cannot be set at the same time")
	}
	if hasType {
		return errorf("the simulator does not model the hidden __DORIS_SEQUENCE_COL__ of %q; map the sequence to a column with %q",
			propSequenceType, propSequenceCol)
	}
	idx := t.colIndex(strings.TrimSpace(col))
	if idx < 0 {
		return errorf("The specified sequence column[%s] not exists", col)
	}
	switch t.def.Columns[idx].Type.Kind {
	case TinyInt, SmallInt, Int, BigInt, LargeInt, Date, DateTime:
		return nil
	}
	return errorf("Sequence type only support integer types and date types")
}

// seqIndex is the sequence column's index, -1 when the table has none. It is
// looked up each time so column changes cannot leave it stale.
func seqIndex(t *table) int {
	col, ok := t.def.Properties[propSequenceCol]
	if !ok || t.def.Keys != UniqueKeys {
		return -1
	}
	return t.colIndex(strings.TrimSpace(col))
}

// staleBySequence reports whether o must be dropped because it carries a
// sequence value lower than the stored row's: Doris keeps the row with the
// larger sequence (a tie goes to the later write) and writes no binlog
// record for the dropped one (doris-facts §8).
func staleBySequence(t *table, o op, old []any) bool {
	idx := seqIndex(t)
	if idx < 0 || o.keyOnly || (o.cols != nil && !o.cols[idx]) {
		return false
	}
	return compareValues(o.row[idx], old[idx]) < 0
}

// checkLoadSequence applies the stream load rules: a non-partial load must
// carry the sequence column (unless its default is CURRENT_TIMESTAMP), and a
// function_column.sequence_col header needs a table with a sequence column.
func checkLoadSequence(t *table, set []bool, req LoadRequest) error {
	idx := seqIndex(t)
	if idx < 0 {
		if req.SequenceSource != "" {
			return errorf("There is no sequence column in the table %s", t.def.Name)
		}
		return nil
	}
	if req.PartialColumns || set[idx] {
		return nil
	}
	if d := t.def.Columns[idx].Default; d != nil && strings.EqualFold(*d, "CURRENT_TIMESTAMP") {
		return nil
	}
	return errorf("Table %s has sequence column, need to specify the sequence column", t.def.Name)
}

// The delete-signed row Doris writes for a deleted key keeps its sequence
// value, so an older write of that key arriving later still loses to the
// delete. tombs holds those values per key; the simulator keeps them for
// the table's life (Doris drops them at base compaction).

// staleAfterDelete reports whether a write of a key that is not present
// loses against the sequence value of the delete that removed it.
func staleAfterDelete(t *table, o op, key string) bool {
	seq, ok := t.tombs[key]
	if !ok {
		return false
	}
	idx := seqIndex(t)
	if idx < 0 || o.keyOnly || (o.cols != nil && !o.cols[idx]) {
		return false
	}
	return compareValues(o.row[idx], seq) < 0
}

// noteDelete remembers the sequence value a delete carried (a DELETE
// statement's carries the stored row's).
func noteDelete(t *table, o op, old []any, key string) {
	idx := seqIndex(t)
	if idx < 0 {
		return
	}
	seq := o.row[idx]
	if o.keyOnly || (o.cols != nil && !o.cols[idx]) {
		if old == nil {
			return
		}
		seq = old[idx]
	}
	if t.tombs == nil {
		t.tombs = map[string]any{}
	}
	t.tombs[key] = seq
}
