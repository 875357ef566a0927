// Package schemameta builds the `schema`, `key_columns` and `doris_schema`
// metadata of a Doris table's messages: a benthos public/schema Common tree
// of the selected columns in body order, the list of the table's key
// columns, and the Doris description (exact types, key model, comments)
// that doris_load's create_tables recreates the table from. All are
// computed once per table schema and attached to every message of that
// schema without copying or allocating.
package schemameta

import (
	"fmt"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/doris/ddl"
)

// Metadata keys the values are attached under.
const (
	KeySchema      = "schema"
	KeyKeyColumns  = "key_columns"
	KeyDorisSchema = ddl.MetaKey
)

// Meta holds the metadata values of one table schema. It is immutable and
// safe to share between goroutines.
type Meta struct {
	common      schema.Common
	fingerprint string
	keys        []string
	// Boxed once: converting an ImmutableAny to the ImmutableValue interface
	// allocates, so Attach passes these prebuilt interface values.
	schemaVal service.ImmutableValue
	keysVal   service.ImmutableValue
	dorisVal  service.ImmutableValue
}

// New builds the metadata of db.table from its SHOW CREATE TABLE properties.
// selected names the body's columns in body order (matched like Doris
// column names, case-insensitively); nil selects every column in table
// order.
//
// key_columns lists the columns that identify a row: the UNIQUE KEY (or
// AGGREGATE KEY) columns. A DUPLICATE KEY table has sort-key columns but no
// row identity (rows with equal sort keys are distinct rows, and Doris
// keeps them all), so its key_columns is empty.
func New(db, table string, p *doris.TableProperties, selected []string) (*Meta, error) {
	if p == nil {
		return nil, fmt.Errorf("schema of %s.%s: no table properties", db, table)
	}
	cols, err := selectColumns(p.Columns, selected)
	if err != nil {
		return nil, fmt.Errorf("schema of %s.%s: %w", db, table, err)
	}
	root := schema.Common{Name: table, Type: schema.Object}
	for _, c := range cols {
		t, err := parseType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("schema of %s.%s: column %s type %q: %w", db, table, c.Name, c.Type, err)
		}
		nullable, known := p.Nullable[c.Name]
		child, err := commonOf(c.Name, t, nullable || !known)
		if err != nil {
			return nil, fmt.Errorf("schema of %s.%s: column %s: %w", db, table, c.Name, err)
		}
		root.Children = append(root.Children, child)
	}
	if err := root.Validate(); err != nil {
		return nil, fmt.Errorf("schema of %s.%s: %w", db, table, err)
	}
	var keys []string
	if p.KeysType != "DUP_KEYS" {
		keys = append(keys, p.KeyColumns...)
	}
	m := newMeta(root, keys)
	m.dorisVal = service.ImmutableAny{V: ddl.Describe(p, cols)}
	return m, nil
}

func newMeta(root schema.Common, keys []string) *Meta {
	anySchema := root.ToAny()
	fp, _ := anySchema.(map[string]any)["fingerprint"].(string)
	keyList := make([]any, len(keys))
	for i, k := range keys {
		keyList[i] = k
	}
	return &Meta{
		common:      root,
		fingerprint: fp,
		keys:        keys,
		schemaVal:   service.ImmutableAny{V: anySchema},
		keysVal:     service.ImmutableAny{V: keyList},
	}
}

func selectColumns(all []doris.ColumnDef, selected []string) ([]doris.ColumnDef, error) {
	if selected == nil {
		return all, nil
	}
	out := make([]doris.ColumnDef, 0, len(selected))
	for _, name := range selected {
		i := indexFold(all, name)
		if i < 0 {
			return nil, fmt.Errorf("selected column %q is not in the table", name)
		}
		out = append(out, all[i])
	}
	return out, nil
}

func indexFold(cols []doris.ColumnDef, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Attach sets `schema`, `key_columns` and `doris_schema` on msg with
// MetaSetImmut. It allocates nothing beyond what the message's metadata map
// needs for three more keys; on a template whose map already holds them,
// nothing at all.
func (m *Meta) Attach(msg *service.Message) {
	msg.MetaSetImmut(KeySchema, m.schemaVal)
	msg.MetaSetImmut(KeyKeyColumns, m.keysVal)
	if m.dorisVal != nil {
		msg.MetaSetImmut(KeyDorisSchema, m.dorisVal)
	}
}

// Fingerprint identifies the schema: the SHA-256 that Common.ToAny puts in
// the value's `fingerprint` field. Any change to a column's name, type,
// nullability or order, or to the selection, changes it.
func (m *Meta) Fingerprint() string { return m.fingerprint }

// Common returns the schema tree. Its Children slices are shared: callers
// must not modify them.
func (m *Meta) Common() schema.Common { return m.common }

// KeyColumns returns a copy of the key column names.
func (m *Meta) KeyColumns() []string { return append([]string(nil), m.keys...) }
