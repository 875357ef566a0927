package ddl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/schema"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// MaxVarchar is the longest VARCHAR Doris accepts. Text keys get it, since
// Doris refuses STRING key columns and a shorter bound could refuse rows.
const MaxVarchar = 65533

// ColumnType maps a Common schema node onto the Doris type of a value
// (non-key) column. The mapping, documented in docs/writing-into-doris.md:
//
//	BOOLEAN      BOOLEAN
//	INT32        INT
//	INT64        BIGINT
//	FLOAT32      FLOAT
//	FLOAT64      DOUBLE
//	DECIMAL(p,s) DECIMAL(p,s)
//	BIG_DECIMAL  STRING (exact: no Doris decimal holds any precision)
//	STRING       STRING
//	BYTE_ARRAY   STRING (the JSON body carries the bytes as text)
//	UUID         VARCHAR(36)
//	DATE         DATE
//	TIMESTAMP    DATETIME(0|3|6) for a unit of seconds|millis|micros;
//	             nanos become DATETIME(6), Doris's finest
//	TIME_OF_DAY  STRING (Doris has no TIME column type)
//	ANY          JSON
//	ARRAY        ARRAY<element>
//	MAP          MAP<STRING,value> (JSON object keys are text)
//	OBJECT       STRUCT<field:type,...>; JSON when it has no fields
//	UNION        the type of its one non-NULL member; JSON otherwise
//	NULL         refused: a column needs a type
func ColumnType(c schema.Common) (string, error) {
	return columnType(c, 0)
}

// maxDepth bounds nesting; a schema from another input is data, and a
// runaway tree must not exhaust the stack.
const maxDepth = 64

func columnType(c schema.Common, depth int) (string, error) {
	if depth > maxDepth {
		return "", errors.New("nested deeper than 64 levels")
	}
	switch c.Type {
	case schema.Boolean:
		return "BOOLEAN", nil
	case schema.Int32:
		return "INT", nil
	case schema.Int64:
		return "BIGINT", nil
	case schema.Float32:
		return "FLOAT", nil
	case schema.Float64:
		return "DOUBLE", nil
	case schema.Decimal:
		return decimalType(c)
	case schema.BigDecimal, schema.String, schema.ByteArray, schema.TimeOfDay:
		return "STRING", nil
	case schema.UUID:
		return "VARCHAR(36)", nil
	case schema.Date:
		return "DATE", nil
	case schema.Timestamp:
		return timestampType(c), nil
	case schema.Any:
		return "JSON", nil
	case schema.Array:
		if len(c.Children) != 1 {
			return "", fmt.Errorf("ARRAY %q needs one child, has %d", c.Name, len(c.Children))
		}
		elem, err := columnType(c.Children[0], depth+1)
		if err != nil {
			return "", err
		}
		return "ARRAY<" + elem + ">", nil
	case schema.Map:
		if len(c.Children) != 1 {
			return "", fmt.Errorf("MAP %q needs one child, has %d", c.Name, len(c.Children))
		}
		val, err := columnType(c.Children[0], depth+1)
		if err != nil {
			return "", err
		}
		return "MAP<STRING," + val + ">", nil
	case schema.Object:
		return structType(c, depth)
	case schema.Union:
		return unionType(c, depth)
	case schema.Null:
		return "", fmt.Errorf("%q is of type NULL, which no Doris column holds", c.Name)
	}
	return "", fmt.Errorf("%q has type %s, which has no Doris column type", c.Name, c.Type)
}

func decimalType(c schema.Common) (string, error) {
	if c.Logical == nil || c.Logical.Decimal == nil {
		return "", fmt.Errorf("DECIMAL %q has no precision and scale", c.Name)
	}
	d := c.Logical.Decimal
	return "DECIMAL(" + strconv.Itoa(int(d.Precision)) + "," + strconv.Itoa(int(d.Scale)) + ")", nil
}

func timestampType(c schema.Common) string {
	switch c.EffectiveTimestamp().Unit {
	case schema.TimeUnitSeconds:
		return "DATETIME"
	case schema.TimeUnitMillis:
		return "DATETIME(3)"
	}
	return "DATETIME(6)"
}

// structType writes STRUCT<name:type,...>. Doris's field names are plain
// identifiers; a name that is not one makes the object a JSON column.
func structType(c schema.Common, depth int) (string, error) {
	if len(c.Children) == 0 {
		return "JSON", nil
	}
	fields := make([]string, len(c.Children))
	for i, f := range c.Children {
		if !plainName(f.Name) {
			return "JSON", nil
		}
		t, err := columnType(f, depth+1)
		if err != nil {
			return "", err
		}
		fields[i] = f.Name + ":" + t
	}
	return "STRUCT<" + strings.Join(fields, ",") + ">", nil
}

func plainName(s string) bool {
	if s == "" || len(s) > 64 || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func unionType(c schema.Common, depth int) (string, error) {
	var members []schema.Common
	for _, m := range c.Children {
		if m.Type != schema.Null {
			members = append(members, m)
		}
	}
	if len(members) == 1 {
		return columnType(members[0], depth+1)
	}
	return "JSON", nil
}

// KeyColumnType maps a Common schema node onto the Doris type of a key
// column. Doris refuses STRING, FLOAT, DOUBLE, JSON and nested key columns:
// text becomes VARCHAR(65533), the others are refused with an error naming
// the column.
func KeyColumnType(c schema.Common) (string, error) {
	switch c.Type {
	case schema.String, schema.ByteArray, schema.BigDecimal, schema.TimeOfDay:
		return "VARCHAR(" + strconv.Itoa(MaxVarchar) + ")", nil
	case schema.Float32, schema.Float64:
		return "", fmt.Errorf("key column %q is %s: Doris refuses FLOAT and DOUBLE keys", c.Name, c.Type)
	case schema.Any, schema.Array, schema.Map, schema.Object, schema.Union, schema.Null:
		return "", fmt.Errorf("key column %q is %s: Doris keys must be scalar", c.Name, c.Type)
	}
	return ColumnType(c)
}

// FromCommon describes a table with the columns of a Common schema (an
// OBJECT whose children are the columns) and the given key columns: a
// UNIQUE KEY table when there are keys, a DUPLICATE KEY one otherwise.
func FromCommon(root schema.Common, keys []string) (*Table, error) {
	if root.Type != schema.Object {
		return nil, fmt.Errorf("schema is %s, not an OBJECT of columns", root.Type)
	}
	t := &Table{Keys: append([]string(nil), keys...)}
	if len(keys) > 0 {
		t.Model = Unique
	}
	isKey := map[string]bool{}
	for _, k := range keys {
		isKey[strings.ToLower(k)] = true
	}
	for _, c := range root.Children {
		var typ string
		var err error
		if isKey[strings.ToLower(c.Name)] {
			typ, err = KeyColumnType(c)
		} else {
			typ, err = ColumnType(c)
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", doris.QuoteIdent(c.Name), err)
		}
		t.Columns = append(t.Columns, Column{Name: c.Name, Type: typ, Nullable: c.Optional})
	}
	if _, err := t.ordered(); err != nil {
		return nil, err
	}
	return t, nil
}
