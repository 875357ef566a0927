package storage

import "sort"

// dupRowsAsOf is the DUP read of ScanAsOf without the commit-TSO column, at
// the cost of a plain scan when the target is recent. Row binlog exists
// only from a table's creation, deletes are refused on a row-binlog DUP
// table, and a commit appends its rows to the tablets and its records to
// the log together, so each tablet's rows are its records' rows in log
// order: the rows at asOf are a prefix, the tablet's rows minus those of
// the records after asOf. ok is false when the log does not have that
// shape; dupAsOf then rebuilds the tablets record by record.
func dupRowsAsOf(t *table, tbs []*tablet, asOf int64) (chunks [][][]any, ok bool) {
	cut := sort.Search(len(t.log), func(i int) bool { return t.log[i].tso > asOf })
	later := make(map[*tablet]int)
	for _, r := range t.log[cut:] {
		if r.op != rawInsert {
			return nil, false
		}
		later[t.tabletFor(r.row)]++
	}
	chunks = make([][][]any, len(tbs))
	for i, tb := range tbs {
		rows := t.snapshot(tb)
		n := len(rows) - later[tb]
		if n < 0 {
			return nil, false
		}
		chunks[i] = rows[:n:n]
	}
	return chunks, true
}
