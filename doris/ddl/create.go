package ddl

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Table properties create_tables sets itself.
const (
	PropMergeOnWrite      = "enable_unique_key_merge_on_write"
	PropSequenceCol       = "function_column.sequence_col"
	PropDuplicateWithoutK = "enable_duplicate_without_keys_by_default"
)

// Template placeholders.
const (
	PlaceDatabase   = "{database}"
	PlaceTable      = "{table}"
	PlaceColumns    = "{columns}"
	PlaceKeyColumns = "{key_columns}"
)

// Options shape every created table.
type Options struct {
	Buckets        int               // 0: BUCKETS AUTO
	Properties     map[string]string // PROPERTIES, as given
	SequenceColumn string            // added as BIGINT with function_column.sequence_col; "" for none
	Template       string            // a DDL template replacing the generated statement; "" for none
}

// CreateDatabaseSQL creates db unless it exists.
func CreateDatabaseSQL(db string) string {
	return "CREATE DATABASE IF NOT EXISTS " + doris.QuoteIdent(db)
}

// CreateTableSQL writes the statement that creates db.table as t describes
// it, unless it exists (an existing table is never changed):
//
//   - UNIQUE: UNIQUE KEY(keys), merge-on-write, DISTRIBUTED BY HASH(keys);
//   - DUPLICATE: DUPLICATE KEY(sort key), DISTRIBUTED BY RANDOM, the
//     distribution Doris recommends for tables without a key. Without a
//     sort key, the first column is the sort key when Doris allows it as a
//     key; otherwise the table has none
//     (enable_duplicate_without_keys_by_default).
//
// Keys come first, in key order; the other columns keep their order. With
// o.Template the template is filled in instead.
func CreateTableSQL(db, table string, t *Table, o Options) (string, error) {
	if o.Template != "" {
		t = withSequence(t, o.SequenceColumn)
		if err := t.validate(); err != nil {
			return "", err
		}
		cols, err := t.ordered()
		if err != nil {
			return "", err
		}
		return fillTemplate(o.Template, db, table, t, cols)
	}
	stmt, _, err := generate(db, table, t, o, true)
	return stmt, err
}

// CreateTableNewSQL is CreateTableSQL without IF NOT EXISTS and without a
// template: a table that exists already is refused ("already exists"), so
// a statement that succeeds made exactly the returned columns (keys first,
// the sequence column included).
func CreateTableNewSQL(db, table string, t *Table, o Options) (string, []Column, error) {
	return generate(db, table, t, o, false)
}

func generate(db, table string, t *Table, o Options, ifNotExists bool) (string, []Column, error) {
	t = withSequence(t, o.SequenceColumn)
	if err := t.validate(); err != nil {
		return "", nil, err
	}
	cols, err := t.ordered()
	if err != nil {
		return "", nil, err
	}
	keys, props := t.Keys, map[string]string{}
	for k, v := range o.Properties {
		props[k] = v
	}
	if t.Model == Unique {
		if _, set := props[PropMergeOnWrite]; !set {
			props[PropMergeOnWrite] = "true"
		}
		if o.SequenceColumn != "" {
			props[PropSequenceCol] = o.SequenceColumn
		}
	} else {
		// Doris refuses the property on any other key model.
		delete(props, PropMergeOnWrite)
		if len(keys) == 0 {
			if keyable(cols[0].Type) {
				keys = []string{cols[0].Name}
			} else {
				props[PropDuplicateWithoutK] = "true"
			}
		}
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	if ifNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(doris.QualifiedTable(db, table))
	b.WriteString(" (\n")
	b.WriteString(columnList(cols, ",\n"))
	b.WriteString("\n) ENGINE=OLAP\n")
	if len(keys) > 0 {
		b.WriteString(t.Model.String() + " KEY(" + identList(keys) + ")\n")
	}
	if t.Comment != "" {
		b.WriteString("COMMENT " + doris.QuoteLiteral(t.Comment) + "\n")
	}
	if t.Model == Unique {
		b.WriteString("DISTRIBUTED BY HASH(" + identList(keys) + ")")
	} else {
		b.WriteString("DISTRIBUTED BY RANDOM")
	}
	b.WriteString(" BUCKETS " + buckets(o.Buckets))
	if len(props) > 0 {
		b.WriteString("\nPROPERTIES (\n")
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for i, k := range names {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(doris.QuoteLiteral(k) + " = " + doris.QuoteLiteral(props[k]))
		}
		b.WriteString("\n)")
	}
	return b.String(), cols, nil
}

// withSequence adds the sequence column, a nullable BIGINT, unless the
// messages already carry it (a replica of a replica). doris_load fills it
// on every target; only a UNIQUE KEY table orders its rows by it (the
// property), a DUPLICATE KEY one keeps it as a plain column.
func withSequence(t *Table, seq string) *Table {
	if seq == "" {
		return t
	}
	if _, ok := t.column(seq); ok {
		return t
	}
	c := *t
	c.Columns = append(append([]Column(nil), t.Columns...), Column{
		Name: seq, Type: "BIGINT", Nullable: true, Comment: "source change order (doris_load sequence_column)",
	})
	return &c
}

func buckets(n int) string {
	if n <= 0 {
		return "AUTO"
	}
	return strconv.Itoa(n)
}

func columnList(cols []Column, sep string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		s := "  " + doris.QuoteIdent(c.Name) + " " + c.Type
		if c.Nullable {
			s += " NULL"
		} else {
			s += " NOT NULL"
		}
		if c.Comment != "" {
			s += " COMMENT " + doris.QuoteLiteral(c.Comment)
		}
		parts[i] = s
	}
	return strings.Join(parts, sep)
}

func identList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = doris.QuoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// keyable reports whether Doris takes a column of this type as a key.
func keyable(typ string) bool {
	word := strings.ToUpper(typ)
	if i := strings.IndexAny(word, "(< "); i >= 0 {
		word = word[:i]
	}
	switch word {
	case "FLOAT", "DOUBLE", "STRING", "TEXT", "JSON", "JSONB", "VARIANT", "ARRAY", "MAP", "STRUCT",
		"HLL", "BITMAP", "QUANTILE_STATE", "AGG_STATE":
		return false
	}
	return true
}

// CheckTemplate refuses a template that cannot describe a table: it must
// name the table and its columns.
func CheckTemplate(tmpl string) error {
	for _, p := range []string{PlaceTable, PlaceColumns} {
		if !strings.Contains(tmpl, p) {
			return fmt.Errorf("template must contain %s", p)
		}
	}
	return nil
}

// fillTemplate replaces the placeholders with quoted names and the column
// definitions. The template is the user's own DDL: key model, distribution
// and properties are whatever it says.
func fillTemplate(tmpl, db, table string, t *Table, cols []Column) (string, error) {
	if err := CheckTemplate(tmpl); err != nil {
		return "", err
	}
	if strings.Contains(tmpl, PlaceKeyColumns) && len(t.Keys) == 0 {
		return "", errors.New("template uses {key_columns} and the messages carry no key columns")
	}
	r := strings.NewReplacer(
		PlaceDatabase, doris.QuoteIdent(db),
		PlaceTable, doris.QuoteIdent(table),
		PlaceColumns, columnList(cols, ",\n"),
		PlaceKeyColumns, identList(t.Keys),
	)
	return r.Replace(tmpl), nil
}
