package storage

import "strings"

// ErrNameInsertFiltered marks the rejection of rows that fit no partition.
const ErrNameInsertFiltered = "INSERT_FILTERED"

// routeRow reports whether the row has a partition, creating the AUTO RANGE
// partition it needs first. Doris creates such partitions during the load,
// so they stay even if the transaction then fails.
func (s *Store) routeRow(t *table, row []any) bool {
	if t.part.kind == "" { // set at creation, never changed: no lock needed
		return true
	}
	s.mu.RLock()
	p := partitionOf(t, row)
	s.mu.RUnlock()
	if p != nil {
		return true
	}
	if !t.part.auto {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if partitionOf(t, row) != nil {
		return true
	}
	return s.autoPartitionFor(t, row) != nil
}

// checkRoutedLocked fails a commit whose staged rows lost their partition
// meanwhile (DROP PARTITION during the transaction).
func checkRoutedLocked(t *table, ops []op) error {
	if t.part.kind == "" {
		return nil
	}
	for _, o := range ops {
		if !o.del && partitionOf(t, o.row) == nil {
			return errNoPartition(t.def.Columns, o.row)
		}
	}
	return nil
}

// commitVersions advances CommittedVersion of the partitions a commit
// writes, as Doris's commit takes each partition's next version
// (DatabaseTransactionMgr.updateCatalogAfterCommitted); callers hold s.mu
// for writing.
func commitVersions(t *table, ops []op) {
	seen := map[*partition]bool{}
	for _, o := range ops {
		if p := partitionOf(t, o.row); p != nil && !seen[p] {
			seen[p] = true
			p.committed++
		}
	}
}

// bumpVersions advances VisibleVersion of the partitions a commit wrote,
// as each Doris publish does; callers hold s.mu for writing.
func bumpVersions(t *table, ops []op, ms int64) {
	seen := map[*partition]bool{}
	for _, o := range ops {
		if p := partitionOf(t, o.row); p != nil && !seen[p] {
			seen[p] = true
			p.version++
			p.versionMs = ms
		}
	}
}

// AddPartition runs ALTER TABLE ... ADD PARTITION. The new partition is
// empty, so no Row Binlog record is written.
func (s *Store) AddPartition(db, table string, item PartitionItemDef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return err
	}
	if t.part.kind == "" {
		return errorf("Only support adding partition to range and list partitioned table")
	}
	p, err := buildItem(t, item)
	if err != nil {
		return err
	}
	if err := checkNewPartition(t, p); err != nil {
		return err
	}
	insertPartition(t, s.newPartition(t, p))
	rebuildTablets(t)
	return nil
}

// DropPartition runs ALTER TABLE ... DROP PARTITION. Doris writes no delete
// records for the dropped rows, and the partition's own binlog records go
// with its tablets ("Unconsumed changes of the partition disappear with
// it", Table Stream Advanced, effect of base table changes).
func (s *Store) DropPartition(db, table, name string, ifExists bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return err
	}
	idx := -1
	for i, p := range t.parts {
		if strings.EqualFold(p.name, name) {
			idx = i
		}
	}
	switch {
	case idx < 0 && ifExists:
		return nil
	case idx < 0:
		return errorf("Error in list of partitions to %s", name)
	case t.part.kind == "":
		return errorf("Alter table [%s] failed. Not a partitioned table", table)
	}
	dropped := t.parts[idx]
	t.parts = append(append([]*partition(nil), t.parts[:idx]...), t.parts[idx+1:]...)
	rebuildTablets(t)
	kept := make([]*record, 0, len(t.log))
	for _, r := range t.log {
		if r.part != dropped.id {
			kept = append(kept, r)
		}
	}
	t.log = kept
	return nil
}

// Partitions lists a table's partitions in SHOW PARTITIONS order with each
// partition's committed row count.
func (s *Store) Partitions(db, table string) ([]PartitionInfo, []int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return nil, nil, err
	}
	counts := make([]int64, len(t.parts))
	for i, p := range t.parts {
		for _, tb := range p.tablets {
			counts[i] += int64(len(tb.rows) + len(tb.dup))
		}
	}
	return partitionInfos(t), counts, nil
}

// loadFiltered applies max_filter_ratio, the one place it is checked: the
// rows the front end filtered (req.FilteredRows) and the rows that fit no
// partition ("no partition for this tuple" in the BE's error log) together,
// over all rows of the load, as the BE judges a load once it has run.
func loadFiltered(req LoadRequest, noPartition int64) error {
	if noPartition+req.FilteredRows == 0 {
		return nil
	}
	total := float64(int64(len(req.Rows)) + req.FilteredRows)
	if float64(noPartition+req.FilteredRows) > req.MaxFilterRatio*total {
		return errorf("[DATA_QUALITY_ERROR]too many filtered rows")
	}
	return nil
}

// noPartitionReason is the BE's error-log line for a row that fits no
// partition (VRowDistribution: "no partition for this tuple. tuple=" and
// Block::dump_data_json of the row, in RuntimeState's "Reason: %s. src line
// [%s]; " frame with an empty src line). The BE's headers name its internal
// types (Int32, Nullable(String)); the simulator names the column's SQL type.
func noPartitionReason(cols []Column, row []any) string {
	return "Reason: no partition for this tuple. tuple=" + tupleJSON(cols, row) + ". src line []; "
}
