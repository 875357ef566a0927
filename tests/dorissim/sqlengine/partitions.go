package sqlengine

import (
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// addPartition runs ALTER TABLE ... ADD PARTITION <name> VALUES ...
func addPartition(s *Session, db, table, text string) (*Result, error) {
	info, err := s.eng.store.Table(db, table)
	if err != nil {
		return nil, err
	}
	kind := storage.PartitionRange
	if info.Def.Partition != nil {
		kind = info.Def.Partition.Kind
	}
	item, err := storage.ParsePartitionItem(text, kind)
	if err != nil {
		return nil, errSyntax("%v", err)
	}
	return okOrErr(s.eng.store.AddPartition(db, table, item))
}

// dropPartition runs ALTER TABLE ... DROP PARTITION [IF EXISTS] <name> [FORCE].
func dropPartition(s *Session, db, table string, c *cursor) (*Result, error) {
	ifExists := c.accept("if", "exists")
	name, ok := c.ident()
	if !ok {
		return nil, errSyntax("Syntax error in DROP PARTITION near %s", c.near())
	}
	c.accept("force")
	if !c.done() {
		return nil, errSyntax("Syntax error in DROP PARTITION near %s", c.near())
	}
	return okOrErr(s.eng.store.DropPartition(db, table, name, ifExists))
}

// showPartitions answers SHOW PARTITIONS FROM [db.]t with Doris's columns,
// every value as text as the FE's proc result carries it.
func showPartitions(s *Session, c *cursor) (*Result, error) {
	if !c.accept("from") && !c.accept("in") {
		return nil, errSyntax("Syntax error in SHOW PARTITIONS near %s", c.near())
	}
	db, table, ok := c.tableName()
	if !ok {
		return nil, errSyntax("Syntax error in SHOW PARTITIONS near %s", c.near())
	}
	if !c.done() {
		// WHERE / ORDER BY / LIMIT would silently return every partition.
		return nil, errSyntax("SHOW PARTITIONS filters are not supported by the simulator near %s", c.near())
	}
	db, err := qualify(s, db)
	if err != nil {
		return nil, err
	}
	parts, counts, err := s.eng.store.Partitions(db, table)
	if err != nil {
		return nil, err
	}
	cols := make([]ResultColumn, len(storage.ShowPartitionsColumns))
	for i, n := range storage.ShowPartitionsColumns {
		cols[i] = ResultColumn{Name: n, Type: varcharType}
	}
	rows := make([][]any, len(parts))
	for i, p := range parts {
		vals := p.ShowRow(counts[i])
		row := make([]any, len(vals))
		for j, v := range vals {
			row[j] = v
		}
		rows[i] = row
	}
	return staticResult(cols, rows), nil
}
