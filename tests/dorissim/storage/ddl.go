package storage

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseCreateTable parses a Doris CREATE TABLE statement: column list, key
// model, COMMENT, [AUTO] PARTITION BY, DISTRIBUTED BY and PROPERTIES.
// ROLLUP and INDEX clauses are parsed and ignored.
func ParseCreateTable(sql string) (CreateTable, error) {
	toks, err := lexDDL(sql)
	if err != nil {
		return CreateTable{}, fmt.Errorf("parse CREATE TABLE: %w", err)
	}
	s := &tokenStream{toks: toks}
	var ct CreateTable
	if err := s.expectKeywords("CREATE"); err != nil {
		return ct, err
	}
	s.acceptKeywords("EXTERNAL")
	if err := s.expectKeywords("TABLE"); err != nil {
		return ct, err
	}
	ct.IfNotExists = s.acceptKeywords("IF", "NOT", "EXISTS")
	if err := parseTableName(s, &ct); err != nil {
		return ct, err
	}
	if err := parseColumnList(s, &ct.Def); err != nil {
		return ct, err
	}
	if err := parseTableClauses(s, &ct.Def); err != nil {
		return ct, err
	}
	s.acceptPunct(";")
	if s.peek().Kind != tokEOF {
		return ct, s.errorf("unexpected trailing text")
	}
	if err := applyDefaultKeys(&ct.Def); err != nil {
		return ct, err
	}
	return ct, nil
}

func parseTableName(s *tokenStream, ct *CreateTable) error {
	name, err := s.ident()
	if err != nil {
		return err
	}
	if s.acceptPunct(".") {
		ct.DB = name
		if name, err = s.ident(); err != nil {
			return err
		}
	}
	ct.Def.Name = name
	return nil
}

func parseIdentList(s *tokenStream) ([]string, error) {
	if err := s.expectPunct("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		id, err := s.ident()
		if err != nil {
			return nil, err
		}
		out = append(out, id)
		if s.acceptPunct(")") {
			return out, nil
		}
		if err := s.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

func parseTableClauses(s *tokenStream, def *TableDef) error {
	for s.peek().Kind != tokEOF && !s.isPunct(";") {
		if err := parseTableClause(s, def); err != nil {
			return err
		}
	}
	return nil
}

func parseTableClause(s *tokenStream, def *TableDef) error {
	var err error
	switch {
	case s.acceptKeywords("ENGINE"):
		s.acceptPunct("=")
		eng, e := s.ident()
		if e == nil && !strings.EqualFold(eng, "OLAP") {
			return fmt.Errorf("Unknown engine name: %s", eng)
		}
		err = e
	case s.acceptKeywords("UNIQUE", "KEY"):
		def.Keys = UniqueKeys
		def.KeyColumns, err = parseIdentList(s)
	case s.acceptKeywords("DUPLICATE", "KEY"):
		def.Keys = DupKeys
		def.KeyColumns, err = parseIdentList(s)
	case s.acceptKeywords("AGGREGATE", "KEY"):
		def.Keys = AggKeys
		def.KeyColumns, err = parseIdentList(s)
	case s.acceptKeywords("CLUSTER", "BY"):
		def.ClusterColumns, err = parseIdentList(s)
	case s.acceptKeywords("COMMENT"):
		def.Comment, err = s.stringLit()
	case s.acceptKeywords("AUTO", "PARTITION", "BY"):
		def.Partition, err = parsePartitionClause(s, true)
	case s.acceptKeywords("PARTITION", "BY"):
		def.Partition, err = parsePartitionClause(s, false)
	case s.acceptKeywords("DISTRIBUTED", "BY"):
		err = parseDistribution(s, def)
	case s.acceptKeywords("ROLLUP"):
		err = s.skipBalanced()
	case s.acceptKeywords("PROPERTIES"):
		def.Properties, err = parseProperties(s)
	default:
		return s.errorf("unexpected clause")
	}
	return err
}

func parseDistribution(s *tokenStream, def *TableDef) error {
	switch {
	case s.acceptKeywords("HASH"):
		cols, err := parseIdentList(s)
		if err != nil {
			return err
		}
		def.BucketColumns = cols
	case s.acceptKeywords("RANDOM"):
		def.BucketColumns = nil
	default:
		return s.errorf("expected HASH or RANDOM")
	}
	def.Buckets = 1
	if !s.acceptKeywords("BUCKETS") {
		return nil
	}
	if s.acceptKeywords("AUTO") {
		def.AutoBuckets = true
		return nil
	}
	t := s.next()
	n, err := strconv.Atoi(t.Text())
	if t.Kind != TokNumber || err != nil || n <= 0 {
		return fmt.Errorf("Number of hash distribution should be greater than zero.")
	}
	def.Buckets = n
	return nil
}

func parseProperties(s *tokenStream) (map[string]string, error) {
	if err := s.expectPunct("("); err != nil {
		return nil, err
	}
	props := map[string]string{}
	if s.acceptPunct(")") {
		return props, nil
	}
	for {
		k, err := s.stringLit()
		if err != nil {
			return nil, err
		}
		if err := s.expectPunct("="); err != nil {
			return nil, err
		}
		v, err := s.stringLit()
		if err != nil {
			return nil, err
		}
		props[k] = v
		if s.acceptPunct(")") {
			return props, nil
		}
		if err := s.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// propDupWithoutKeys lets a DUPLICATE KEY table have no sort key.
const propDupWithoutKeys = "enable_duplicate_without_keys_by_default"

// Doris's short key bounds (FeConstants.shortkey_max_column_count and
// shortkey_maxsize_bytes).
const (
	shortKeyMaxColumns = 3
	shortKeyMaxBytes   = 36
)

// applyDefaultKeys fills Doris defaults, as CreateTableInfo.validate does.
// No key clause: a DUPLICATE KEY table whose sort key Doris picks from the
// leading columns (at most three and 36 bytes, stopping at a type that
// cannot be a key and after a VARCHAR), or none with
// enable_duplicate_without_keys_by_default. No DISTRIBUTED BY: RANDOM
// BUCKETS AUTO for such a table. A table with a key clause and no
// DISTRIBUTED BY gets HASH(keys) BUCKETS 1 here, where Doris would refuse a
// UNIQUE KEY one (random distribution): older tests rely on it.
func applyDefaultKeys(def *TableDef) error {
	if def.Properties == nil {
		def.Properties = map[string]string{}
	}
	withoutKeys := strings.EqualFold(strings.TrimSpace(def.Properties[propDupWithoutKeys]), "true")
	defaulted := def.Keys == ""
	if defaulted {
		def.Keys = DupKeys
		if !withoutKeys {
			def.KeyColumns = defaultSortKey(def.Columns)
			if len(def.KeyColumns) == 0 {
				return errorf("The olap table first column could not be float, double, string or array, struct, map, please use decimal or varchar instead.")
			}
		}
	} else if withoutKeys {
		return errorf("table property '%s' only can set 'true' when create olap table by default.", propDupWithoutKeys)
	}
	if def.Buckets == 0 {
		def.Buckets = 1
		if defaulted {
			def.AutoBuckets = true
		} else {
			def.BucketColumns = append([]string(nil), def.KeyColumns...)
		}
	}
	keySet := map[string]bool{}
	for _, k := range def.KeyColumns {
		keySet[strings.ToLower(k)] = true
	}
	for i := range def.Columns {
		def.Columns[i].Key = keySet[strings.ToLower(def.Columns[i].Name)]
	}
	return nil
}

// defaultSortKey is the sort key Doris picks for a table declared without one.
func defaultSortKey(cols []Column) []string {
	var keys []string
	size := 0
	for _, c := range cols {
		size += indexSize(c.Type)
		if len(keys) >= shortKeyMaxColumns || size > shortKeyMaxBytes {
			if len(keys) == 0 && (c.Type.Kind == Varchar || c.Type.Kind == Char) {
				keys = append(keys, c.Name)
			}
			break
		}
		switch c.Type.Kind {
		case Float, Double, String, JSON, Array, Map, Struct:
			return keys
		}
		keys = append(keys, c.Name)
		if c.Type.Kind == Varchar {
			break
		}
	}
	return keys
}

// indexSize is a column's share of the short key (Type.getIndexSize).
func indexSize(t Type) int {
	switch t.Kind {
	case Boolean, TinyInt:
		return 1
	case SmallInt:
		return 2
	case Int, Float:
		return 4
	case BigInt, Double, DateTime:
		return 8
	case LargeInt:
		return 16
	case Date:
		return 4
	case Decimal:
		switch {
		case t.Precision <= 9:
			return 4
		case t.Precision <= 18:
			return 8
		}
		return 16
	case Char:
		return t.Length
	case Varchar:
		return 20
	}
	return 16
}
