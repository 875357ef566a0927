package storage

import (
	"strconv"
	"strings"
)

// Table properties the simulator interprets.
const (
	propBinlogEnable = "binlog.enable"
	propBinlogFormat = "binlog.format"
	propNeedHist     = "binlog.need_historical_value"
	propTTL          = "binlog.ttl_seconds"
	propMoW          = "enable_unique_key_merge_on_write"
	propReplication  = "replication_num"
	defaultTTL       = 86400
)

// TableInfo describes a table for the SQL engine and the FE endpoints.
type TableInfo struct {
	DB                  string
	Def                 TableDef // current columns
	TabletIDs           []int64  // every partition's tablets; ids are stable and never reused
	Partitions          []PartitionInfo
	TTLSeconds          int64
	BinlogEnabled       bool
	NeedHistoricalValue bool
	MergeOnWrite        bool
	ShowCreate          string // SHOW CREATE TABLE text, with the binlog.* properties
}

// CreateTable validates def as Doris does and creates the table.
func (s *Store) CreateTable(db string, def TableDef, ifNotExists bool) error {
	t, err := buildTable(db, def)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.dbs[db]
	if !ok {
		return errUnknownDB(db)
	}
	if _, exists := d.tables[def.Name]; exists {
		if ifNotExists {
			return nil
		}
		return &Error{Code: CodeTableExists, Message: "Table '" + def.Name + "' already exists"}
	}
	for _, p := range t.parts {
		s.newPartition(t, p)
	}
	rebuildTablets(t)
	d.tables[def.Name] = t
	return nil
}

// buildTable validates a definition and computes the derived table state.
func buildTable(db string, def TableDef) (*table, error) {
	def = cloneDef(def)
	if def.Name == "" {
		return nil, errorf("Table name cannot be empty")
	}
	if len(def.Columns) == 0 {
		return nil, errorf("Table %s should contain at least one column", def.Name)
	}
	if def.Keys == "" {
		def.Keys = DupKeys
	}
	if def.Buckets <= 0 {
		def.Buckets = 1
	}
	t := &table{db: db, def: def, open: map[*Txn]int64{}}
	steps := []func(*table) error{validateColumns, validateKeys, validateBuckets, applyProperties, resolvePartitioning}
	for _, step := range steps {
		if err := step(t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func cloneDef(def TableDef) TableDef {
	def.Columns = append([]Column(nil), def.Columns...)
	def.KeyColumns = append([]string(nil), def.KeyColumns...)
	def.BucketColumns = append([]string(nil), def.BucketColumns...)
	def.Partition = def.Partition.clone()
	props := make(map[string]string, len(def.Properties))
	for k, v := range def.Properties {
		props[k] = v
	}
	def.Properties = props
	return def
}

func validateColumns(t *table) error {
	seen := map[string]bool{}
	for _, c := range t.def.Columns {
		if strings.HasPrefix(strings.ToUpper(c.Name), "__DORIS_") {
			return errorf("Disable to create table column with name start with __DORIS_: %s", strings.ToUpper(c.Name))
		}
		lc := strings.ToLower(c.Name)
		if seen[lc] {
			return errorf("Duplicate column name '%s'", c.Name)
		}
		seen[lc] = true
		if c.Type.Kind == 0 {
			return errorf("Column %s has no type", c.Name)
		}
		if c.Default != nil {
			if err := checkDefault(c); err != nil {
				return errorf("Invalid default value for '%s': %v", c.Name, err)
			}
		}
	}
	return nil
}

func validateKeys(t *table) error {
	if len(t.def.KeyColumns) == 0 && !strings.EqualFold(strings.TrimSpace(t.def.Properties[propDupWithoutKeys]), "true") {
		t.def.KeyColumns = []string{t.def.Columns[0].Name}
	}
	t.keyIdx = nil
	for i, k := range t.def.KeyColumns {
		idx := t.colIndex(k)
		if idx < 0 {
			return errorf("Key column[%s] doesn't exist.", k)
		}
		if idx != i {
			return errorf("Key columns should be a ordered prefix of the schema. KeyColumns[%d] (starts from zero) is %s, but corresponding column is %s in the previous columns declaration.",
				i, k, t.def.Columns[i].Name)
		}
		if err := checkKeyType(t.def.Columns[idx]); err != nil {
			return err
		}
		t.keyIdx = append(t.keyIdx, idx)
	}
	for i := range t.def.Columns {
		t.def.Columns[i].Key = i < len(t.keyIdx)
	}
	return nil
}

func checkKeyType(c Column) error {
	switch c.Type.Kind {
	case Float, Double:
		return errorf("Float or double can not used as a key, use decimal instead.")
	case String:
		return errorf("String Type should not be used in key column[%s].", c.Name)
	case JSON, Array, Map, Struct:
		return errorf("%s can only be used in the non-key column at present.", c.Type.SchemaName())
	}
	return nil
}

func validateBuckets(t *table) error {
	t.bucketIdx = nil
	for _, b := range t.def.BucketColumns {
		idx := t.colIndex(b)
		if idx < 0 {
			return errorf("Distribution column[%s] is not found", b)
		}
		if t.def.Keys != DupKeys && idx >= len(t.keyIdx) {
			return errorf("Distribution column[%s] is not key column", b)
		}
		t.bucketIdx = append(t.bucketIdx, idx)
	}
	if len(t.bucketIdx) == 0 && t.def.Keys == UniqueKeys {
		return errorf("Create unique keys table should not contain random distribution desc")
	}
	return nil
}

func parseBoolProp(name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errorf("Invalid %s value: %s", name, v)
}

func parseTTL(v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, errorf("Invalid binlog.ttl_seconds value: %s", v)
	}
	if n <= 0 {
		return 0, errorf("ROW binlog.ttl_seconds must be greater than 0")
	}
	return n, nil
}
