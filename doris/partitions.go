package doris

import (
	"context"
	"fmt"
	"strconv"
)

// Partition is one row of SHOW PARTITIONS: what a table-discovery pass
// compares with the previous list to notice dropped partitions, whose rows
// leave Doris without any Row Binlog record.
type Partition struct {
	ID   int64
	Name string
}

// Partitions lists a table's partitions with SHOW PARTITIONS through the FE
// statement API, in the order Doris returns them (ascending ranges for
// RANGE tables). An unpartitioned table has one partition named after it;
// an AUTO PARTITION table may have none yet.
func Partitions(ctx context.Context, c *Client, db, table string) ([]Partition, error) {
	res, err := Statement(ctx, c, "SHOW PARTITIONS FROM "+QualifiedTable(db, table))
	if err != nil {
		return nil, fmt.Errorf("show partitions of %s.%s: %w", db, table, err)
	}
	parts, err := ParsePartitions(res)
	if err != nil {
		return nil, fmt.Errorf("show partitions of %s.%s: %w", db, table, err)
	}
	return parts, nil
}

// ParsePartitions reads the PartitionId and PartitionName columns of a SHOW
// PARTITIONS result. The FE sends every value as text; numbers are accepted
// too. A missing column, a non-numeric or non-positive id, an empty name or
// a repeated id is an error: a partial list would look like dropped
// partitions.
func ParsePartitions(res *StatementResult) ([]Partition, error) {
	if res == nil {
		return nil, fmt.Errorf("SHOW PARTITIONS returned no result")
	}
	idCol, nameCol := res.ColumnIndex("PartitionId"), res.ColumnIndex("PartitionName")
	if idCol < 0 || nameCol < 0 {
		return nil, fmt.Errorf("SHOW PARTITIONS result lacks the PartitionId or PartitionName column (columns %v)", columnNames(res))
	}
	out := make([]Partition, 0, len(res.Rows))
	seen := make(map[int64]bool, len(res.Rows))
	for i := range res.Rows {
		idText, ok := res.CellText(i, idCol)
		if !ok {
			return nil, fmt.Errorf("SHOW PARTITIONS row %d has no PartitionId", i+1)
		}
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("SHOW PARTITIONS row %d: PartitionId %q is not a positive integer", i+1, idText)
		}
		name, ok := res.CellText(i, nameCol)
		if !ok || name == "" {
			return nil, fmt.Errorf("SHOW PARTITIONS row %d (PartitionId %d) has no PartitionName", i+1, id)
		}
		if seen[id] {
			return nil, fmt.Errorf("SHOW PARTITIONS lists PartitionId %d twice", id)
		}
		seen[id] = true
		out = append(out, Partition{ID: id, Name: name})
	}
	return out, nil
}

func columnNames(res *StatementResult) []string {
	names := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		names[i] = c.Name
	}
	return names
}
