// Package ddl writes the CREATE TABLE statements that doris_load's
// create_tables runs: a table description, taken either from a Doris
// source's `doris_schema` metadata (exact Doris types, key model, comments)
// or from a benthos Common schema (mapped type by type, see ColumnType),
// turned into Doris DDL with every identifier and literal quoted by the
// doris package.
package ddl
