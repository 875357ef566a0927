package ddl

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// MetaKey is the metadata key under which doris_binlog attaches the Doris
// description of a message's table: what the Common `schema` cannot say
// (exact types, key model, comments), so that doris_load can recreate the
// table as it is.
const MetaKey = "doris_schema"

// Field names of the doris_schema value.
const (
	fieldKeysType   = "keys_type"
	fieldKeyColumns = "key_columns"
	fieldColumns    = "columns"
	fieldComment    = "comment"
	fieldName       = "name"
	fieldType       = "type"
	fieldNullable   = "nullable"
	// fieldFingerprint identifies the description, so that doris_load
	// compares one string per schema rather than the columns.
	fieldFingerprint = "fingerprint"
)

// Describe builds the doris_schema value of a Doris table: its key model
// and key columns as Doris declares them, its comment, and the given
// columns (the messages' columns, in body order) with their types as SHOW
// CREATE TABLE prints them, nullability and comments. The value is built
// once per table schema and shared by every message: callers must not
// modify it.
//
//	{"keys_type": "UNIQUE_KEYS", "key_columns": ["id"], "comment": "",
//	 "columns": [{"name": "id", "type": "bigint", "nullable": false, "comment": ""}, ...],
//	 "fingerprint": "3f2a..."}
func Describe(p *doris.TableProperties, cols []doris.ColumnDef) map[string]any {
	keys := make([]any, len(p.KeyColumns))
	for i, k := range p.KeyColumns {
		keys[i] = k
	}
	list := make([]any, len(cols))
	for i, c := range cols {
		nullable, known := p.Nullable[c.Name]
		list[i] = map[string]any{
			fieldName: c.Name, fieldType: c.Type, fieldNullable: nullable || !known, fieldComment: c.Comment,
		}
	}
	d := map[string]any{
		fieldKeysType: p.KeysType, fieldKeyColumns: keys, fieldComment: p.Comment, fieldColumns: list,
	}
	d[fieldFingerprint] = computeFingerprint(d)
	return d
}

// DescriptionFingerprint identifies a doris_schema value: the fingerprint
// Describe stored in it, or, for a value built elsewhere without one, a
// hash of its content (computed on every call).
func DescriptionFingerprint(v any) string {
	obj, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	if fp, ok := obj[fieldFingerprint].(string); ok && fp != "" {
		return fp
	}
	return computeFingerprint(obj)
}

// computeFingerprint hashes the description's fields but the fingerprint.
// encoding/json sorts map keys, so equal descriptions hash alike.
func computeFingerprint(obj map[string]any) string {
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != fieldFingerprint {
			c[k] = v
		}
	}
	raw, err := json.Marshal(c)
	if err != nil {
		raw = []byte(fmt.Sprintf("%v", c))
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}

// ColumnTypes reads the column types of a doris_schema value, by lower-case
// column name, as SHOW CREATE TABLE prints them.
func ColumnTypes(v any) (map[string]string, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, not an object", MetaKey, v)
	}
	cols, _ := obj[fieldColumns].([]any)
	out := make(map[string]string, len(cols))
	for i, raw := range cols {
		c, err := describedColumn(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: column %d: %w", MetaKey, i, err)
		}
		out[strings.ToLower(c.Name)] = c.Type
	}
	return out, nil
}

// FromDescription reads a doris_schema value back into a table to create.
// UNIQUE and AGGREGATE KEY sources become UNIQUE KEY tables on the same key
// (an aggregate table's rows are identified by its key; the aggregation of
// its values is not copied), DUPLICATE KEY sources DUPLICATE KEY tables with
// the same sort key. A key column missing from the columns (a selection
// without it) makes a keyed table impossible, and is an error; a sort key is
// cut before its first missing column.
func FromDescription(v any) (*Table, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, not an object", MetaKey, v)
	}
	t := &Table{}
	switch kt, _ := obj[fieldKeysType].(string); strings.ToUpper(kt) {
	case "UNIQUE_KEYS", "AGG_KEYS":
		t.Model = Unique
	case "DUP_KEYS":
		t.Model = Duplicate
	default:
		return nil, fmt.Errorf("%s: keys_type %q is none of UNIQUE_KEYS, DUP_KEYS, AGG_KEYS", MetaKey, kt)
	}
	t.Comment, _ = obj[fieldComment].(string)
	cols, ok := obj[fieldColumns].([]any)
	if !ok || len(cols) == 0 {
		return nil, fmt.Errorf("%s: no columns", MetaKey)
	}
	for i, raw := range cols {
		c, err := describedColumn(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: column %d: %w", MetaKey, i, err)
		}
		t.Columns = append(t.Columns, c)
	}
	keys, _ := obj[fieldKeyColumns].([]any)
	for _, raw := range keys {
		k, ok := raw.(string)
		if !ok {
			return nil, fmt.Errorf("%s: key column %v is not a name", MetaKey, raw)
		}
		if _, found := t.column(k); !found {
			if t.Model == Unique {
				return nil, fmt.Errorf("%s: key column %s is not among the messages' columns", MetaKey, doris.QuoteIdent(k))
			}
			break
		}
		t.Keys = append(t.Keys, k)
	}
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", MetaKey, err)
	}
	return t, nil
}

func describedColumn(raw any) (Column, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Column{}, errors.New("not an object")
	}
	c := Column{}
	c.Name, _ = m[fieldName].(string)
	c.Type, _ = m[fieldType].(string)
	c.Nullable, _ = m[fieldNullable].(bool)
	c.Comment, _ = m[fieldComment].(string)
	if c.Name == "" || c.Type == "" {
		return c, errors.New("name or type missing")
	}
	return c, nil
}
