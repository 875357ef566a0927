package storage

import "sort"

// rawOp is the kind of a raw Row Binlog record (doris-facts §8).
type rawOp int8

const (
	rawInsert rawOp = iota
	rawUpdate
	rawDelete
)

// record is one committed Row Binlog record. row is the after-image for
// insert/update and the pre-delete values for delete (key only, other
// columns NULL, without before-images); before is the old row of an update
// when binlog.need_historical_value is on. Records are immutable.
type record struct {
	tso    int64
	lsn    int64
	op     rawOp
	row    []any
	before []any
	key    string
	part   int64 // partition id; DROP PARTITION removes its records
}

// appendRecord adds a record under the store write lock.
func appendRecord(t *table, tso int64, op rawOp, row, before []any, key string) {
	t.nextLSN++
	var part int64
	if p := partitionOf(t, row); p != nil {
		part = p.id
	}
	t.log = append(t.log, &record{tso: tso, lsn: t.nextLSN, op: op, row: row, before: before, key: key, part: part})
}

// searchTSO returns the index of the first record with tso >= v.
func searchTSO(log []*record, v int64) int {
	return sort.Search(len(log), func(i int) bool { return log[i].tso >= v })
}

// keyOnly keeps the key columns and NULLs the rest: what a delete record
// carries when the table keeps no before-images.
func keyOnly(t *table, row []any) []any {
	out := make([]any, len(row))
	for _, i := range t.keyIdx {
		out[i] = row[i]
	}
	return out
}
