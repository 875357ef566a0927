package storage

// Column is one table column.
type Column struct {
	Name     string
	Type     Type
	Nullable bool
	Key      bool
	Comment  string
	// Default is the DEFAULT clause text (nil = no default, i.e. NULL).
	Default *string
	// AutoIncrement marks AUTO_INCREMENT columns (rejected with row binlog).
	AutoIncrement bool
}

// KeysType is the Doris data model of a table.
type KeysType string

// Data models.
const (
	DupKeys    KeysType = "DUP_KEYS"
	UniqueKeys KeysType = "UNIQUE_KEYS"
	AggKeys    KeysType = "AGG_KEYS"
)

// TableDef is a table's definition as written in CREATE TABLE.
type TableDef struct {
	Name          string
	Columns       []Column
	Keys          KeysType
	KeyColumns    []string
	BucketColumns []string
	Buckets       int
	AutoBuckets   bool              // BUCKETS AUTO (kept at one bucket here)
	Properties    map[string]string // as written in PROPERTIES(...)
	Comment       string
	// ClusterColumns holds CLUSTER BY columns (rejected with row binlog).
	ClusterColumns []string
	// Partition is the PARTITION BY clause; nil for an unpartitioned table.
	Partition *PartitionDef
}

// CreateTable is a parsed CREATE TABLE statement.
type CreateTable struct {
	DB          string
	Def         TableDef
	IfNotExists bool
}
