package kafka

import (
	"cmp"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// comparePlaces orders changes and doris_binlog's transaction markers
// (include_transaction_markers) in one order for the exactly_once tail
// check: by TSO, then a begin before every change of its TSO and a commit
// after them, and changes of one TSO by their positions. A marker's place
// is its TSO and kind, which is all it has: a transaction may span
// tables. So a begin or commit the input sends again after a restart (it
// re-reads an unfinished transaction from its start) is dropped as the
// changes it repeats are, and a partition ends up with one begin, the
// changes and one commit.
func comparePlaces(a checkpoint.Pos, am txmarkers.Kind, b checkpoint.Pos, bm txmarkers.Kind) int {
	if a.TSO != b.TSO {
		return cmp.Compare(a.TSO, b.TSO)
	}
	if am != txmarkers.None || bm != txmarkers.None {
		return cmp.Compare(am, bm)
	}
	return a.Compare(b)
}

// markOperation is the operation of a marker kind, "" for a change.
func markOperation(k txmarkers.Kind) string {
	switch k {
	case txmarkers.Begin:
		return txmarkers.OperationBegin
	case txmarkers.Commit:
		return txmarkers.OperationCommit
	}
	return ""
}
