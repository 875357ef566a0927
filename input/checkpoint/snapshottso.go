package checkpoint

import "github.com/rpconnect-doris/rpconnect-doris/doris"

// A table whose snapshot is read as of a commit TSO X (Table.SnapshotTSO)
// has its binlog begin at the whole second that holds X, and drops its
// changes at or before X there: they are in the snapshot. So only the
// table's first window can hold such a change; once a window that ends
// after X is behind the table, X is forgotten and the entry is as short as
// any other.

// SetSnapshotTSO records the TSO table key's snapshot is read as of.
func (s *State) SetSnapshotTSO(key string, tso int64) {
	if t := s.Tables[key]; t != nil {
		t.SnapshotTSO = tso
	}
}

// SnapshotFloor is the position at or before which table key's binlog
// rows are in its snapshot, and whether there is one: every row of the
// table with TSO <= SnapshotTSO.
func (s *State) SnapshotFloor(key string) (Pos, bool) {
	t := s.Tables[key]
	if t == nil || t.SnapshotTSO <= 0 {
		return Pos{}, false
	}
	return Pos{TSO: t.SnapshotTSO, Table: key, LSN: 1<<63 - 1, Op: 3}, true
}

// forgetSnapshotTSO clears t's snapshot TSO once its binlog has read a
// window ending at end.
func forgetSnapshotTSO(t *Table, end Bound) {
	if t != nil && t.SnapshotTSO > 0 && !end.IsZero() && doris.PhysicalMs(t.SnapshotTSO) < end.Ms() {
		t.SnapshotTSO = 0
	}
}

// forgetChainSnapshotTSOs clears the snapshot TSO of every table the
// chain reads once the chain has finished a window ending at end.
func (s *State) forgetChainSnapshotTSOs(end Bound) {
	for _, t := range s.Tables {
		if t != nil && t.SnapshotTSO > 0 && t.Phase == PhaseBinlog {
			forgetSnapshotTSO(t, end)
		}
	}
}

// SnapshotTSOAt is the TSO a snapshot whose table's binlog starts at start
// is read as of: the last of start's second, whose commits the binlog then
// leaves out, so each change is in one of the two.
func SnapshotTSOAt(start Bound) int64 { return doris.LastTSOBefore(start.Ms() + 1000) }

// resnapshotTSO is the TSO a new snapshot of a table that was streaming is
// read as of: the last before its new binlog start, which is where its
// changes were delivered up to. Its catch-up from start then drops
// nothing: a row deleted after that point has no snapshot row to carry
// the delete, so the delete must come as a change.
func resnapshotTSO(start Bound) int64 { return doris.LastTSOBefore(start.Ms()) }
