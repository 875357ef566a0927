package storage

import (
	"strings"
	"time"
)

// DropTable removes a table; its tablet ids are never reused.
func (s *Store) DropTable(db, name string, ifExists bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.dbs[db]
	if !ok {
		return errUnknownDB(db)
	}
	if _, ok := d.tables[name]; !ok {
		if ifExists {
			return nil
		}
		return errUnknownTable(db, name)
	}
	delete(d.tables, name)
	return nil
}

// TruncateTable removes all rows. As in Doris, truncation writes no binlog
// records; each partition is replaced by an empty one with a new partition
// id and new tablets, and the records written before go with the old ones
// ("unconsumed changes before the truncation disappear", Table Stream,
// effect of base table changes).
func (s *Store) TruncateTable(db, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, name)
	if err != nil {
		return err
	}
	for i, p := range t.parts {
		t.parts[i] = s.newPartition(t, &partition{name: p.name, lower: p.lower, upper: p.upper,
			lowerMin: p.lowerMin, upperMax: p.upperMax, values: p.values})
	}
	rebuildTablets(t)
	t.log = nil
	t.tombs = nil
	return nil
}

// AddColumn appends a value column (light schema change): existing rows and
// binlog records read the column's default, or NULL. A CURRENT_TIMESTAMP
// default is taken at the store's clock in the process's zone (the
// simulator's global time_zone is SYSTEM); AddColumnAt takes a session's.
func (s *Store) AddColumn(db, table string, col Column) error {
	return s.AddColumnAt(db, table, col, s.WallClock(time.Local))
}

// AddColumnAt is AddColumn with the writer's wall clock, at which a
// CURRENT_TIMESTAMP or CURRENT_DATE default is evaluated once: every old row
// reads that one value, as Doris's realDefaultValue gives.
func (s *Store) AddColumnAt(db, table string, col Column, wall time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return err
	}
	if i := t.colIndex(col.Name); i >= 0 {
		// SchemaChangeHandler.addColumnInternal refuses an equal column;
		// checkAndAddColumn then one defined otherwise.
		if sameColumn(t.def.Columns[i], col) {
			return errorf("Can not add column which already exists in base table: %s", col.Name)
		}
		return errorf("Repeatedly add same column with different definition: %s", col.Name)
	}
	if col.Key {
		return errorf("Can not add key column %s: only value columns support light schema change", col.Name)
	}
	if col.Type.Kind == 0 {
		return errorf("Column %s has no type", col.Name)
	}
	if col.AutoIncrement && t.rowBinlog {
		return errorf("Table with binlog<Row> does not support auto-increment column: %s", col.Name)
	}
	def, err := DefaultAt(col, wall)
	if err != nil {
		return errorf("Invalid default value for '%s': %v", col.Name, err)
	}
	if def == nil && !col.Nullable {
		return errorf("Can not add not null column %s without default value", col.Name)
	}
	t.def.Columns = append(append([]Column(nil), t.def.Columns...), col)
	rewriteRows(t, func(r []any) []any { return append(append(make([]any, 0, len(r)+1), r...), def) })
	return nil
}

// DropColumn removes a value column from rows and binlog records.
func (s *Store) DropColumn(db, table, col string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return err
	}
	idx := t.colIndex(col)
	if idx < 0 {
		return errorf("Column does not exists: %s", col)
	}
	if idx < len(t.keyIdx) && t.def.Keys == UniqueKeys {
		return errorf("Can not drop key column in Unique data model table")
	}
	if idx < len(t.keyIdx) {
		return errorf("Can not drop key column %s", col)
	}
	if idx == seqIndex(t) {
		return errorf("Can not drop sequence mapping column[%s] in Unique data model table[%s]", col, table)
	}
	for _, b := range t.bucketIdx {
		if b == idx {
			return errorf("Can not drop distribution column: %s", col)
		}
	}
	if len(t.def.Columns) == 1 {
		return errorf("Can not drop the last column of table %s", table)
	}
	cols := append([]Column(nil), t.def.Columns[:idx]...)
	t.def.Columns = append(cols, t.def.Columns[idx+1:]...)
	rewriteRows(t, func(r []any) []any {
		out := append(make([]any, 0, len(r)-1), r[:idx]...)
		return append(out, r[idx+1:]...)
	})
	for i, b := range t.bucketIdx {
		if b > idx {
			t.bucketIdx[i] = b - 1
		}
	}
	return nil
}

// rewriteRows maps every row and binlog record to the new schema. New slices
// are built so snapshots held by readers keep their old shape.
func rewriteRows(t *table, f func([]any) []any) {
	t.schemaVer++
	replaceTablets(t, func(tb *tablet) *tablet {
		nt := newTablet(tb.id)
		for k, r := range tb.rows {
			nt.rows[k] = f(r)
		}
		for _, r := range tb.dup {
			nt.dup = append(nt.dup, f(r))
		}
		return nt
	})
	log := make([]*record, len(t.log))
	for i, r := range t.log {
		nr := *r
		nr.row = f(r.row)
		if r.before != nil {
			nr.before = f(r.before)
		}
		log[i] = &nr
	}
	t.log = log
}

// SetProperties applies ALTER TABLE ... SET ("k" = "v", ...).
func (s *Store) SetProperties(db, table string, props map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return err
	}
	next := *t
	for k, v := range props {
		if err := setProperty(&next, k, v); err != nil {
			return err
		}
	}
	t.ttl, t.needHist = next.ttl, next.needHist
	written := make(map[string]string, len(t.def.Properties)+len(props))
	for k, v := range t.def.Properties {
		written[k] = v
	}
	for k, v := range props {
		written[k] = v
	}
	t.def.Properties = written
	t.props = effectiveProps(t)
	return nil
}

func setProperty(t *table, k, v string) error {
	switch k {
	case propTTL:
		n, err := parseTTL(v)
		if err != nil {
			return err
		}
		t.ttl = n
	case propNeedHist:
		return setNeedHist(t, v)
	case propBinlogEnable:
		b, err := parseBoolProp(k, v)
		if err != nil {
			return err
		}
		if !b && t.rowBinlog {
			return errorf("can't disable binlog when format is [Row]")
		}
		if b && !t.rowBinlog {
			return errorf("binlog<Row> can only be enabled when the table is created")
		}
	case propBinlogFormat:
		if v != "ROW" {
			return errorf("Invalid binlog format value: %s", v)
		}
		if !t.rowBinlog {
			return errorf("binlog<Row> can only be enabled when the table is created")
		}
	case propMoW:
		return errorf("Not allowed to modify property %s", k)
	default:
		if strings.HasPrefix(k, "bloom_filter") && t.rowBinlog {
			return errorf("Not allowed to perform current operation on Table With binlog<row>")
		}
	}
	return nil
}

func setNeedHist(t *table, v string) error {
	b, err := parseBoolProp(propNeedHist, v)
	if err != nil {
		return err
	}
	if t.needHist && !b {
		return errorf("not support change binlog.need_historical_value from true to false")
	}
	if b && t.def.Keys == DupKeys {
		return errorf("Duplicate table model don't support record historical value")
	}
	if b && !t.rowBinlog {
		return errorf("binlog.need_historical_value requires binlog<Row>")
	}
	t.needHist = b
	return nil
}

// sameColumn is Column.equals for what the simulator keeps of a column.
func sameColumn(a, b Column) bool {
	return strings.EqualFold(a.Name, b.Name) && a.Type.String() == b.Type.String() && a.Nullable == b.Nullable &&
		a.Key == b.Key && a.Comment == b.Comment && (a.Default == nil) == (b.Default == nil) &&
		(a.Default == nil || *a.Default == *b.Default)
}
