// Package idle decides which tables a binlog window may skip because none
// of their partitions' versions moved: the rule of docs/idle-tables.md.
//
// A Doris commit allocates its TSO and advances the committed version of
// every partition it writes while it holds the written tables' write
// locks, and information_schema.partitions reads each table under its read
// lock. So a snapshot of the committed versions that was read before a TSO
// fence f shows no commit with a TSO above f, and a snapshot read after
// the TSO passed e shows every commit below e. When a table's partitions
// are the same, at the same committed versions, in a snapshot fenced below
// a window's start and in one read after its end was chosen, no commit
// wrote the table inside the window: its @incr query would return no
// rows, and skipping it is the same as reading it.
//
// The package holds the rule only; reading the snapshots, the TSO fences
// and the window's bookkeeping are the input's.
package idle

import (
	"fmt"
	"sync"
)

// Partition is one partition's row of information_schema.partitions.
type Partition struct {
	ID        int64 // PARTITION_ID; a partition added or replaced gets a new one
	Committed int64 // COMMITTED_VERSION: moves at commit
	Visible   int64 // VISIBLE_VERSION: moves at publish
}

// Snapshot is the partitions of one database's tables, read at one
// moment, by table name.
type Snapshot struct {
	Tables map[string][]Partition
	// FenceMs is the physical time (epoch ms) of a TSO read after the
	// snapshot was read: every commit the snapshot misses has a TSO above
	// it. Zero when no such read succeeded; the snapshot then serves only
	// as the end of the window whose end was chosen before it was read.
	FenceMs int64
}

// Row is one row of the version query, as read from Doris.
type Row struct {
	Table                            string
	PartitionID                      int64
	CommittedVersion, VisibleVersion int64
}

// ErrCloudMode reports a COMMITTED_VERSION of -1, which cloud mode
// answers for every partition (CloudPartition.getCommittedVersion): the
// rule cannot be applied there.
type ErrCloudMode struct{ Table string }

func (e *ErrCloudMode) Error() string {
	return fmt.Sprintf("table %s has COMMITTED_VERSION -1, as Doris in cloud mode answers", e.Table)
}

// Build checks the rows of one database's version query and makes them a
// snapshot. Rows that break what Doris guarantees (a partition id that is
// not positive or appears twice, a version below 1, a visible version
// above the committed one) make the whole answer unusable.
func Build(rows []Row) (*Snapshot, error) {
	s := &Snapshot{Tables: map[string][]Partition{}}
	seen := map[int64]string{}
	for i, r := range rows {
		switch {
		case r.Table == "":
			return nil, fmt.Errorf("row %d has an empty TABLE_NAME", i)
		case r.PartitionID <= 0:
			return nil, fmt.Errorf("row %d (table %s) has PARTITION_ID %d, not a partition id", i, r.Table, r.PartitionID)
		case r.CommittedVersion == -1:
			return nil, &ErrCloudMode{Table: r.Table}
		case r.CommittedVersion < 1 || r.VisibleVersion < 1 || r.VisibleVersion > r.CommittedVersion:
			return nil, fmt.Errorf("row %d (table %s, partition %d) has COMMITTED_VERSION %d and VISIBLE_VERSION %d; "+
				"Doris keeps both at 1 or more with the visible one not above the committed one",
				i, r.Table, r.PartitionID, r.CommittedVersion, r.VisibleVersion)
		}
		if other, dup := seen[r.PartitionID]; dup {
			return nil, fmt.Errorf("PARTITION_ID %d appears twice (tables %s and %s)", r.PartitionID, other, r.Table)
		}
		seen[r.PartitionID] = r.Table
		s.Tables[r.Table] = append(s.Tables[r.Table], Partition{ID: r.PartitionID, Committed: r.CommittedVersion, Visible: r.VisibleVersion})
	}
	return s, nil
}

// Rule keeps, per database, the snapshots that may still serve as the
// start of a coming window, and judges windows against them.
type Rule struct {
	mu  sync.Mutex
	dbs map[string][]*Snapshot // ascending FenceMs, all fenced
}

// New returns a rule that has seen no snapshot: every window is read
// until one is fenced below a window's start.
func New() *Rule { return &Rule{dbs: map[string][]*Snapshot{}} }

// Record keeps db's snapshot s, read after the end of the window being
// planned was chosen, as a possible start snapshot of later windows.
// Windows start at or after startMs from now on, so snapshots no window
// can use any more are dropped: all but the latest fenced below startMs.
func (r *Rule) Record(db string, s *Snapshot, startMs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.dbs[db]
	if s != nil && s.FenceMs > 0 && (len(list) == 0 || list[len(list)-1].FenceMs < s.FenceMs) {
		list = append(list, s)
	}
	keep := 0
	for i, snap := range list {
		if snap.FenceMs < startMs {
			keep = i // the latest below startMs; those before it are never the latest again
		}
	}
	r.dbs[db] = append([]*Snapshot(nil), list[keep:]...)
}

// Forget drops every snapshot: after a restart of the chain from another
// position, say. The rule then reads until it has a start snapshot again.
func (r *Rule) Forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dbs = map[string][]*Snapshot{}
}

// start is the latest snapshot of db fenced strictly below startMs.
func (r *Rule) start(db string, startMs int64) *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	var best *Snapshot
	for _, s := range r.dbs[db] {
		if s.FenceMs < startMs {
			best = s
		}
	}
	return best
}

// Idle tells whether table of db had no commit in the window that starts
// at startMs (epoch ms) and whose end was chosen before end was read. It
// says so only when a start snapshot fenced below startMs and end both
// list the table with the same partitions at the same committed versions.
// A table missing from either (created, dropped, or one the user may not
// see), with no partition, or with a partition added, dropped, replaced
// or moved in any direction (a restore may lower it), is not idle.
func (r *Rule) Idle(db, table string, startMs int64, end *Snapshot) bool {
	if end == nil {
		return false
	}
	a := r.start(db, startMs)
	if a == nil {
		return false
	}
	before, after := a.Tables[table], end.Tables[table]
	if len(before) == 0 || len(before) != len(after) {
		return false
	}
	committed := make(map[int64]int64, len(before))
	for _, p := range before {
		committed[p.ID] = p.Committed
	}
	for _, p := range after {
		v, ok := committed[p.ID]
		if !ok || v != p.Committed {
			return false
		}
	}
	return true
}
