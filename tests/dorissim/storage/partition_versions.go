package storage

import (
	"sort"
	"sync/atomic"
)

// information_schema.partitions as Doris fills it: one row per partition
// of every OLAP table of a database, read from the master FE's catalog
// with each table's read lock held (MetadataGenerator
// .partitionsForInternalCatalog), so a row never shows half a commit. The
// store lock plays the table lock here: a commit allocates its TSO and
// moves its partitions' committed versions under it (commit.go).

// PartitionsFlavor is which Doris the partitions table imitates.
type PartitionsFlavor int32

const (
	// PartitionsClassic: Doris 5.0 in integrated storage-compute mode,
	// with PARTITION_ID, COMMITTED_VERSION and VISIBLE_VERSION
	// (apache/doris#51025 added them).
	PartitionsClassic PartitionsFlavor = iota
	// PartitionsLegacy: a Doris before apache/doris#51025, whose table
	// has MySQL's columns only (no PARTITION_ID and no versions).
	PartitionsLegacy
	// PartitionsCloud: cloud mode, where CloudPartition
	// .getCommittedVersion() answers -1 ("managed by meta-service").
	PartitionsCloud
)

// PartitionVersion is one row of information_schema.partitions.
type PartitionVersion struct {
	DB, Table, Partition string
	ID                   int64
	Committed, Visible   int64
	VisibleMs            int64 // UPDATE_TIME: the last publish, epoch ms
	Method               string
	Rows                 int64
	Buckets              int
}

// partitionsState is the store's knobs for the partitions table.
type partitionsState struct {
	flavor atomic.Int32
	fail   atomic.Int32 // the next N reads fail
}

// SetPartitionsFlavor makes information_schema.partitions look like the
// Doris f names, from the next statement on.
func (s *Store) SetPartitionsFlavor(f PartitionsFlavor) { s.partitions.flavor.Store(int32(f)) }

// PartitionsFlavorNow is the flavor information_schema.partitions has.
func (s *Store) PartitionsFlavorNow() PartitionsFlavor {
	return PartitionsFlavor(s.partitions.flavor.Load())
}

// FailPartitionsReads makes the next n reads of information_schema
// .partitions fail, as a BE whose RPC to the master FE fails does.
func (s *Store) FailPartitionsReads(n int) { s.partitions.fail.Store(int32(max(n, 0))) }

// PartitionVersions lists the partitions of every table of the databases
// keep accepts (all when keep is nil), in database, table and partition
// order, all read at one instant.
func (s *Store) PartitionVersions(keep func(db string) bool) ([]PartitionVersion, error) {
	for {
		n := s.partitions.fail.Load()
		if n <= 0 {
			break
		}
		if s.partitions.fail.CompareAndSwap(n, n-1) {
			return nil, errorf("fetch partitions from the master FE failed: injected failure")
		}
	}
	cloud := s.PartitionsFlavorNow() == PartitionsCloud
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []PartitionVersion
	for _, dbName := range s.sortedDBsLocked() {
		if keep != nil && !keep(dbName) {
			continue
		}
		d := s.dbs[dbName]
		names := make([]string, 0, len(d.tables))
		for name := range d.tables {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			t := d.tables[name]
			method := "UNPARTITIONED"
			if t.part.kind != "" {
				method = t.part.kind
			}
			for _, p := range t.parts {
				var rows int64
				for _, tb := range p.tablets {
					rows += int64(len(tb.rows) + len(tb.dup))
				}
				committed := p.committed
				if cloud {
					committed = -1
				}
				out = append(out, PartitionVersion{DB: dbName, Table: name, Partition: p.name, ID: p.id,
					Committed: committed, Visible: p.version, VisibleMs: p.versionMs, Method: method,
					Rows: rows, Buckets: len(p.tablets)})
			}
		}
	}
	return out, nil
}

// sortedDBsLocked is the database names in order; callers hold s.mu.
func (s *Store) sortedDBsLocked() []string {
	names := make([]string, 0, len(s.dbs))
	for name := range s.dbs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
