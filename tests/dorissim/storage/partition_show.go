package storage

import (
	"fmt"
	"strings"
	"time"
)

// PartitionInfo is one row of SHOW PARTITIONS plus the partition's tablets.
type PartitionInfo struct {
	ID             int64
	Name           string
	VisibleVersion int64
	// CommittedVersion runs ahead of VisibleVersion while a publish is
	// held (publish.go).
	CommittedVersion int64
	VisibleTime      string // yyyy-MM-dd HH:mm:ss
	PartitionKey     string // partition column names joined with ", "; "" unpartitioned
	Range            string // Doris's PartitionItem text; "" unpartitioned
	DistKey          string // bucket columns joined with ", ", or RANDOM
	Buckets          int
	ReplicationNum   int
	TabletIDs        []int64
}

// ShowPartitionsColumns is Doris's SHOW PARTITIONS header
// (PartitionsProcDir.TITLE_NAMES).
var ShowPartitionsColumns = []string{
	"PartitionId", "PartitionName", "VisibleVersion", "VisibleVersionTime", "State", "PartitionKey",
	"Range", "DistributionKey", "Buckets", "ReplicationNum", "StorageMedium", "CooldownTime",
	"RemoteStoragePolicy", "LastConsistencyCheckTime", "DataSize", "IsInMemory", "ReplicaAllocation",
	"IsMutable", "SyncWithBaseTables", "UnsyncTables", "CommittedVersion", "RowCount",
}

// ShowRow renders the partition as SHOW PARTITIONS prints it. DataSize is
// what Doris shows before BEs report sizes; RowCount counts the rows.
func (p PartitionInfo) ShowRow(rows int64) []string {
	return []string{
		fmt.Sprint(p.ID), p.Name, fmt.Sprint(p.VisibleVersion), p.VisibleTime, "NORMAL", p.PartitionKey,
		p.Range, p.DistKey, fmt.Sprint(p.Buckets), fmt.Sprint(p.ReplicationNum), "HDD", "9999-12-31 23:59:59",
		"", "NULL", "0.000 ", "false", fmt.Sprintf("tag.location.default: %d", p.ReplicationNum),
		"true", "true", `\N`, fmt.Sprint(p.CommittedVersion), fmt.Sprint(rows),
	}
}

// partitionInfos lists partitions in SHOW PARTITIONS order; callers hold s.mu.
func partitionInfos(t *table) []PartitionInfo {
	names := make([]string, len(t.part.cols))
	for i, c := range t.part.cols {
		names[i] = t.def.Columns[c].Name
	}
	dist := "RANDOM"
	if len(t.def.BucketColumns) > 0 {
		dist = strings.Join(t.def.BucketColumns, ", ")
	}
	repl := 1
	fmt.Sscan(t.props[propReplication], &repl)
	out := make([]PartitionInfo, len(t.parts))
	for i, p := range t.parts {
		ids := make([]int64, len(p.tablets))
		for j, tb := range p.tablets {
			ids[j] = tb.id
		}
		info := PartitionInfo{
			ID: p.id, Name: p.name, VisibleVersion: p.version, CommittedVersion: p.committed,
			VisibleTime:  time.UnixMilli(p.versionMs).UTC().Format("2006-01-02 15:04:05"),
			PartitionKey: strings.Join(names, ", "), DistKey: dist, Buckets: t.def.Buckets,
			ReplicationNum: repl, TabletIDs: ids,
		}
		if t.part.kind != "" {
			info.Range = itemText(t, p)
		}
		out[i] = info
	}
	return out
}

// itemText is Doris's PartitionItem text: a Guava range of PartitionKeys
// for RANGE, a list of PartitionKeys for LIST.
func itemText(t *table, p *partition) string {
	if t.part.kind == PartitionList {
		keys := make([]string, len(p.values))
		for i, v := range p.values {
			keys[i] = keyText(t, v, false)
		}
		return "[" + strings.Join(keys, ", ") + "]"
	}
	return "[" + keyText(t, p.lower, p.lowerMin) + ".." + keyText(t, p.upper, false) + ")"
}

// keyText renders one PartitionKey: "types: [DATEV2]; keys: [2008-01-01]; ".
func keyText(t *table, vals []any, min bool) string {
	types := make([]string, len(t.part.cols))
	keys := make([]string, len(t.part.cols))
	for i, c := range t.part.cols {
		typ := t.def.Columns[c].Type
		types[i] = typ.SchemaName()
		switch {
		case min || i >= len(vals):
			keys[i] = typeMinText(typ)
		case vals[i] == nil:
			keys[i] = "MAXVALUE"
		default:
			keys[i] = FormatValue(typ, vals[i])
		}
	}
	return "types: [" + strings.Join(types, ", ") + "]; keys: [" + strings.Join(keys, ", ") + "]; "
}

// boundSQL renders a bound as SHOW CREATE TABLE prints it: ('v', 'w') or
// (MAXVALUE).
func boundSQL(t *table, vals []any, min bool) string {
	parts := make([]string, len(t.part.cols))
	for i, c := range t.part.cols {
		typ := t.def.Columns[c].Type
		switch {
		case min || i >= len(vals):
			parts[i] = "'" + typeMinText(typ) + "'"
		case vals[i] == nil:
			parts[i] = "MAXVALUE"
		default:
			parts[i] = "'" + FormatValue(typ, vals[i]) + "'"
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// typeMinText is the lowest value of a partition column type, which Doris
// prints as the lower bound of a first VALUES LESS THAN partition.
func typeMinText(typ Type) string {
	switch typ.Kind {
	case TinyInt:
		return "-128"
	case SmallInt:
		return "-32768"
	case Int:
		return "-2147483648"
	case BigInt:
		return "-9223372036854775808"
	case LargeInt:
		return "-170141183460469231731687303715884105728"
	case Date:
		return "0000-01-01"
	case DateTime:
		return "0000-01-01 00:00:00"
	case Boolean:
		return "0"
	}
	return ""
}

// partitionSQL is the partition clause of SHOW CREATE TABLE, "" when the
// table is unpartitioned.
func partitionSQL(t *table) string {
	if t.part.kind == "" {
		return ""
	}
	var sb strings.Builder
	col := quoteIdent(t.def.Columns[t.part.cols[0]].Name)
	switch {
	case t.part.auto:
		fmt.Fprintf(&sb, "AUTO PARTITION BY RANGE (date_trunc(%s, '%s'))\n(", col, t.part.unit)
	default:
		names := make([]string, len(t.part.cols))
		for i, c := range t.part.cols {
			names[i] = quoteIdent(t.def.Columns[c].Name)
		}
		fmt.Fprintf(&sb, "PARTITION BY %s(%s)\n(", t.part.kind, strings.Join(names, ", "))
	}
	for i, p := range t.parts {
		if i > 0 {
			sb.WriteString(",\n")
		}
		if t.part.kind == PartitionList {
			vals := make([]string, len(p.values))
			for j, v := range p.values {
				vals[j] = listValueSQL(t, v)
			}
			fmt.Fprintf(&sb, "PARTITION %s VALUES IN (%s)", p.name, strings.Join(vals, ","))
			continue
		}
		fmt.Fprintf(&sb, "PARTITION %s VALUES [%s, %s)", p.name, boundSQL(t, p.lower, p.lowerMin), boundSQL(t, p.upper, false))
	}
	sb.WriteString(")")
	return sb.String()
}

// listValueSQL prints one LIST tuple: 'v' for one column, ('v', 'w') for more.
func listValueSQL(t *table, v []any) string {
	s := boundSQL(t, v, false)
	if len(t.part.cols) == 1 {
		return s[1 : len(s)-1]
	}
	return s
}

// tupleText and rangeText feed Doris's conflict messages.
func tupleText(t *table, v []any) string { return keyText(t, v, false) }

func rangeText(t *table, p *partition) string { return itemText(t, p) }
