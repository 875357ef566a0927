package storage

import (
	"strings"
)

// ModifyColumn applies ALTER TABLE ... MODIFY COLUMN: a new type,
// nullability or default for an existing column, refused as Doris's
// Column.checkSchemaChangeAllowed and ColumnType refuse it (see
// docs/contracts.md, "ALTER TABLE"). Doris runs a type change as a schema
// change job that rewrites the data; the simulator rewrites it at once,
// so SHOW CREATE TABLE shows the new type when the statement returns.
func (s *Store) ModifyColumn(db, table string, col Column) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return err
	}
	idx := t.colIndex(col.Name)
	if idx < 0 {
		return errorf("Column[%s] does not exists", col.Name)
	}
	if t.rowBinlog {
		return errorf("Not allowed to perform current operation on Table With binlog<row>")
	}
	old := t.def.Columns[idx]
	col.Name, col.Key = old.Name, old.Key
	typeChanged := old.Type.String() != col.Type.String()
	if typeChanged && t.def.Keys == UniqueKeys && idx == seqIndex(t) {
		return errorf("Can not alter sequence column[%s]", old.Name)
	}
	if err := checkSchemaChangeAllowed(old, col); err != nil {
		return err
	}
	if !typeChanged {
		t.def.Columns = replaceColumn(t.def.Columns, idx, col)
		return nil
	}
	// Converted before anything changes: a value the new type cannot hold
	// fails the change (Doris cancels its job) and leaves the table as it was.
	var convErr error
	convert := func(r []any) []any {
		out := append([]any(nil), r...)
		if out[idx] == nil {
			return out
		}
		v, err := Coerce(col.Type, out[idx])
		if err != nil && convErr == nil {
			convErr = err
		}
		out[idx] = v
		return out
	}
	for _, tb := range t.tablets {
		for _, r := range tb.rows {
			convert(r)
		}
		for _, r := range tb.dup {
			convert(r)
		}
	}
	if convErr != nil {
		return errorf("schema change of column %s from %s to %s failed: %v", old.Name, old.Type, col.Type, convErr)
	}
	t.def.Columns = replaceColumn(t.def.Columns, idx, col)
	rewriteRows(t, convert)
	return nil
}

func replaceColumn(cols []Column, idx int, col Column) []Column {
	out := append([]Column(nil), cols...)
	out[idx] = col
	return out
}

// checkSchemaChangeAllowed is Doris's Column.checkSchemaChangeAllowed for
// the types the simulator has, with its texts.
func checkSchemaChangeAllowed(old, col Column) error {
	from, to := old.Type.SchemaName(), col.Type.SchemaName()
	if old.Type.String() != col.Type.String() && !schemaChangeAllowed(old.Type, col.Type) {
		return errorf("Can not change %s to %s", from, to)
	}
	if old.Nullable && !col.Nullable {
		return errorf("Can not change from nullable to non-nullable")
	}
	if (old.Default == nil) != (col.Default == nil) || (old.Default != nil && *old.Default != *col.Default) {
		return errorf("Can not change default value")
	}
	if isText(old.Type) && isText(col.Type) && old.Type.Kind != String && col.Type.Kind != String && old.Type.Length > col.Type.Length {
		return errorf("Shorten type length is prohibited, srcType=%s, dstType=%s", sqlType(old.Type), sqlType(col.Type))
	}
	return nil
}

func isText(t Type) bool { return t.Kind == Char || t.Kind == Varchar || t.Kind == String }

// sqlType is Type.toSql: lower-case names with their length, e.g. varchar(10).
func sqlType(t Type) string { return strings.ToLower(t.String()) }

// schemaChanges is Doris's ColumnType.schemaChangeMatrix, by the names the
// FE reports (Type.SchemaName): which type a column may change to besides
// its own.
var schemaChanges = map[string][]string{
	"TINYINT":    {"SMALLINT", "INT", "BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
	"SMALLINT":   {"INT", "BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
	"INT":        {"BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
	"BIGINT":     {"LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
	"LARGEINT":   {"FLOAT", "DOUBLE", "VARCHAR", "STRING"},
	"FLOAT":      {"DOUBLE", "VARCHAR", "STRING"},
	"DOUBLE":     {"VARCHAR", "STRING"},
	"VARCHAR":    {"TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "STRING", "JSON"},
	"STRING":     {"JSON"},
	"JSON":       {"STRING", "VARCHAR"},
	"CHAR":       {"TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
	"DECIMAL32":  {"VARCHAR", "STRING", "DECIMAL64", "DECIMAL128"},
	"DECIMAL64":  {"VARCHAR", "STRING", "DECIMAL32", "DECIMAL128"},
	"DECIMAL128": {"VARCHAR", "STRING", "DECIMAL32", "DECIMAL64"},
	"DATEV2":     {"DATETIMEV2"},
	"DATETIMEV2": {"DATEV2"},
}

func schemaChangeAllowed(from, to Type) bool {
	f, t := from.SchemaName(), to.SchemaName()
	if from.IsComplex() || to.IsComplex() {
		return false // nested types change only in order and CHAR length, which the simulator does not model
	}
	if f == t {
		return true
	}
	for _, ok := range schemaChanges[f] {
		if ok == t {
			return true
		}
	}
	return false
}
