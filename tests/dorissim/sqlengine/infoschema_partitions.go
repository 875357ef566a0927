package sqlengine

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// information_schema.partitions as Doris serves it, in place of MySQL's
// table that go-mysql-server has. The columns and their order are the BE
// scanner's (be/src/information_schema/schema_partitions_scanner.cpp,
// _s_tbls_columns); the values are what MetadataGenerator
// .partitionsForInternalCatalog puts in each row. A Doris before
// apache/doris#51025 has the first 25 columns after PARTITION_ID only
// (storage.PartitionsLegacy).

func partitionsName() sql.StringType {
	return types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_utf8mb4_0900_bin)
}

// partitionsColumn is one column of the table and how a row fills it.
type partitionsColumn struct {
	name   string
	typ    sql.Type
	legacy bool // also in the table before apache/doris#51025
	value  func(storage.PartitionVersion) any
}

var partitionsColumns = []partitionsColumn{
	{"PARTITION_ID", types.Int64, false, func(p storage.PartitionVersion) any { return p.ID }},
	{"TABLE_CATALOG", partitionsName(), true, func(storage.PartitionVersion) any { return "internal" }},
	{"TABLE_SCHEMA", partitionsName(), true, func(p storage.PartitionVersion) any { return p.DB }},
	{"TABLE_NAME", partitionsName(), true, func(p storage.PartitionVersion) any { return p.Table }},
	{"PARTITION_NAME", partitionsName(), true, func(p storage.PartitionVersion) any { return p.Partition }},
	{"SUBPARTITION_NAME", partitionsName(), true, func(storage.PartitionVersion) any { return "NULL" }},
	{"PARTITION_ORDINAL_POSITION", types.Int32, true, func(storage.PartitionVersion) any { return int32(0) }},
	{"SUBPARTITION_ORDINAL_POSITION", types.Int32, true, func(storage.PartitionVersion) any { return int32(0) }},
	{"PARTITION_METHOD", partitionsName(), true, func(p storage.PartitionVersion) any { return p.Method }},
	{"SUBPARTITION_METHOD", partitionsName(), true, func(storage.PartitionVersion) any { return "NULL" }},
	{"PARTITION_EXPRESSION", partitionsName(), true, func(storage.PartitionVersion) any { return "NULL" }},
	{"SUBPARTITION_EXPRESSION", partitionsName(), true, func(storage.PartitionVersion) any { return "NULL" }},
	{"PARTITION_DESCRIPTION", types.LongText, true, func(storage.PartitionVersion) any { return "NULL" }},
	{"TABLE_ROWS", types.Int64, true, func(p storage.PartitionVersion) any { return p.Rows }},
	{"AVG_ROW_LENGTH", types.Int64, true, func(storage.PartitionVersion) any { return int64(0) }},
	{"DATA_LENGTH", types.Int64, true, func(storage.PartitionVersion) any { return int64(0) }},
	{"MAX_DATA_LENGTH", types.Int64, true, func(storage.PartitionVersion) any { return int64(0) }},
	{"INDEX_LENGTH", types.Int64, true, func(storage.PartitionVersion) any { return int64(0) }},
	{"DATA_FREE", types.Int64, true, func(storage.PartitionVersion) any { return int64(0) }},
	{"CREATE_TIME", types.Int64, true, func(storage.PartitionVersion) any { return nil }},
	{"UPDATE_TIME", types.Datetime, true, func(p storage.PartitionVersion) any { return time.UnixMilli(p.VisibleMs).UTC() }},
	{"CHECK_TIME", types.Datetime, true, func(storage.PartitionVersion) any { return nil }},
	{"CHECKSUM", types.Int64, true, func(storage.PartitionVersion) any { return int64(0) }},
	{"PARTITION_COMMENT", types.LongText, true, func(storage.PartitionVersion) any { return "" }},
	{"NODEGROUP", partitionsName(), true, func(storage.PartitionVersion) any { return "" }},
	{"TABLESPACE_NAME", partitionsName(), true, func(storage.PartitionVersion) any { return "" }},
	{"LOCAL_DATA_SIZE", types.LongText, false, func(storage.PartitionVersion) any { return "0.000 " }},
	{"REMOTE_DATA_SIZE", types.LongText, false, func(storage.PartitionVersion) any { return "0.000 " }},
	{"STATE", types.LongText, false, func(storage.PartitionVersion) any { return "NORMAL" }},
	{"REPLICA_ALLOCATION", types.LongText, false, func(storage.PartitionVersion) any { return "tag.location.default: 1" }},
	{"REPLICA_NUM", types.Int32, false, func(storage.PartitionVersion) any { return int32(1) }},
	{"STORAGE_POLICY", types.LongText, false, func(storage.PartitionVersion) any { return "" }},
	{"STORAGE_MEDIUM", types.LongText, false, func(storage.PartitionVersion) any { return "HDD" }},
	{"COOLDOWN_TIME_MS", types.LongText, false, func(storage.PartitionVersion) any { return "9999-12-31 23:59:59" }},
	{"LAST_CONSISTENCY_CHECK_TIME", types.LongText, false, func(storage.PartitionVersion) any { return "NULL" }},
	{"BUCKET_NUM", types.Int32, false, func(p storage.PartitionVersion) any { return int32(p.Buckets) }},
	{"COMMITTED_VERSION", types.Int64, false, func(p storage.PartitionVersion) any { return p.Committed }},
	{"VISIBLE_VERSION", types.Int64, false, func(p storage.PartitionVersion) any { return p.Visible }},
	{"PARTITION_KEY", types.LongText, false, func(storage.PartitionVersion) any { return "" }},
	{"RANGE", types.LongText, false, func(storage.PartitionVersion) any { return "" }},
	{"DISTRIBUTION", types.LongText, false, func(storage.PartitionVersion) any { return "" }},
}

// partitionsTable is the table a statement reads: its columns are those of
// the flavor the store has when the statement resolves it.
func partitionsTable(store *storage.Store) *information_schema.InformationSchemaTable {
	legacy := store.PartitionsFlavorNow() == storage.PartitionsLegacy
	var cols []partitionsColumn
	for _, c := range partitionsColumns {
		if !legacy || c.legacy {
			cols = append(cols, c)
		}
	}
	schema := make(sql.Schema, len(cols))
	for i, c := range cols {
		schema[i] = &sql.Column{Name: c.name, Type: c.typ, Nullable: c.name != "TABLE_NAME",
			Source: information_schema.PartitionsTableName}
	}
	return &information_schema.InformationSchemaTable{
		TableName:   information_schema.PartitionsTableName,
		TableSchema: schema,
		Reader: func(ctx *sql.Context, _ sql.Catalog) (sql.RowIter, error) {
			parts, err := store.PartitionVersions(nil)
			if err != nil {
				return nil, err
			}
			rows := make([]sql.Row, len(parts))
			for i, p := range parts {
				row := make(sql.Row, len(cols))
				for j, c := range cols {
					row[j] = c.value(p)
				}
				rows[i] = row
			}
			return sql.RowsToRowIter(rows...), nil
		},
	}
}
