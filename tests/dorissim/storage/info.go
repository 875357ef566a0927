package storage

import (
	"fmt"
	"sort"
	"strings"
)

// Table returns a copy of a table's current definition and metadata.
func (s *Store) Table(db, name string) (*TableInfo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.lookup(db, name)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(t.tablets))
	for i, tb := range t.tablets {
		ids[i] = tb.id
	}
	return &TableInfo{
		DB:                  db,
		Def:                 cloneDef(t.def),
		TabletIDs:           ids,
		Partitions:          partitionInfos(t),
		TTLSeconds:          t.ttl,
		BinlogEnabled:       t.rowBinlog,
		NeedHistoricalValue: t.needHist,
		MergeOnWrite:        t.def.Keys == UniqueKeys && t.mow,
		ShowCreate:          showCreate(t),
	}, nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// stringEscaper is built once: building a Replacer costs more than using it.
var stringEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func quoteString(s string) string {
	return `"` + stringEscaper.Replace(s) + `"`
}

// showCreate renders SHOW CREATE TABLE the way Doris prints it: lower-case
// types, NULL/NOT NULL per column, key model, distribution and the sorted
// effective properties, with the partition clause Doris prints (every range
// in the fixed [lower, upper) form, as RangePartitionInfo.toSql does).
func showCreate(t *table) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "CREATE TABLE %s (\n", quoteIdent(t.def.Name))
	for i, c := range t.def.Columns {
		fmt.Fprintf(&sb, "  %s %s", quoteIdent(c.Name), strings.ToLower(c.Type.String()))
		if c.Nullable {
			sb.WriteString(" NULL")
		} else {
			sb.WriteString(" NOT NULL")
		}
		if c.Default != nil {
			if _, _, fn := DefaultFunction(c); fn {
				fmt.Fprintf(&sb, " DEFAULT %s", *c.Default)
			} else {
				fmt.Fprintf(&sb, " DEFAULT %s", quoteString(*c.Default))
			}
		}
		if c.Comment != "" {
			fmt.Fprintf(&sb, " COMMENT %s", quoteString(c.Comment))
		}
		if i < len(t.def.Columns)-1 {
			sb.WriteString(",")
		}
		sb.WriteString("\n")
	}
	sb.WriteString(") ENGINE=OLAP\n")
	if len(t.def.KeyColumns) > 0 {
		fmt.Fprintf(&sb, "%s KEY(%s)\n", keyWord(t.def.Keys), quoteList(t.def.KeyColumns))
	}
	if t.def.Comment != "" {
		fmt.Fprintf(&sb, "COMMENT %s\n", quoteString(t.def.Comment))
	}
	if ps := partitionSQL(t); ps != "" {
		sb.WriteString(ps + "\n")
	}
	buckets := fmt.Sprint(t.def.Buckets)
	if t.def.AutoBuckets {
		buckets = "AUTO"
	}
	if len(t.def.BucketColumns) > 0 {
		fmt.Fprintf(&sb, "DISTRIBUTED BY HASH(%s) BUCKETS %s\n", quoteList(t.def.BucketColumns), buckets)
	} else {
		fmt.Fprintf(&sb, "DISTRIBUTED BY RANDOM BUCKETS %s\n", buckets)
	}
	sb.WriteString("PROPERTIES (\n")
	keys := make([]string, 0, len(t.props))
	for k := range t.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		fmt.Fprintf(&sb, "%s = %s", quoteString(k), quoteString(t.props[k]))
		if i < len(keys)-1 {
			sb.WriteString(",")
		}
		sb.WriteString("\n")
	}
	sb.WriteString(");")
	return sb.String()
}

func keyWord(k KeysType) string {
	switch k {
	case UniqueKeys:
		return "UNIQUE"
	case AggKeys:
		return "AGGREGATE"
	}
	return "DUPLICATE"
}
