package output

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris/ddl"
)

// create_tables field names.
const (
	fieldCreateTables     = "create_tables"
	fieldCreateEnabled    = "enabled"
	fieldCreateBuckets    = "buckets"
	fieldCreateProperties = "properties"
	fieldCreateTemplate   = "template"

	bucketsAuto = "auto"
)

// createConfig is the validated create_tables object.
type createConfig struct {
	enabled bool
	opts    ddl.Options // SequenceColumn is filled from sequence_column
}

func createFields() *service.ConfigField {
	return service.NewObjectField(fieldCreateTables,
		service.NewBoolField(fieldCreateEnabled).
			Description("Create a target that does not exist before its first load: its database (when missing) and its table, from the messages' schema. From `doris_binlog` the table is the source table again, from its `doris_schema` metadata: the same columns with their exact types (VARCHAR lengths, DECIMAL precision and scale, DATETIME precision, LARGEINT, ARRAY, MAP, STRUCT, JSON), nullability, comments, and its key: UNIQUE and AGGREGATE KEY sources become UNIQUE KEY merge-on-write tables hashed on the key, DUPLICATE KEY sources DUPLICATE KEY tables with the same sort key, distributed at random. From any other input the table is built from the Common `schema` metadata with `key_columns`, each type mapped as the table in docs/writing-into-doris.md says: with key columns a UNIQUE KEY merge-on-write table hashed on them, without a DUPLICATE KEY table distributed at random. Partitions, rollups, indexes, bloom filters and other properties of a source table are not copied: pre-create the target, or give `template`. An existing target is never changed. A missing target whose messages carry no schema fails its batch with an error naming it.").
			Default(false),
		service.NewStringField(fieldCreateBuckets).
			Description("The bucket count of every created table: `auto` (`BUCKETS AUTO`, Doris sizes them) or a number.").
			Default(bucketsAuto).
			LintRule(`root = if this.string().lowercase() != "auto" && !this.string().re_match("^[1-9][0-9]{0,5}$") { [ "create_tables.buckets must be auto or a positive number; got %q".format(this.string()) ] }`),
		service.NewStringMapField(fieldCreateProperties).
			Description("PROPERTIES of every created table, as given. `enable_unique_key_merge_on_write` is `true` on UNIQUE KEY tables unless set here (and left out on DUPLICATE KEY tables, where Doris refuses it); with `sequence_column`, `function_column.sequence_col` names it.").
			Example(map[string]any{"replication_num": "1"}).
			Default(map[string]any{}),
		service.NewStringField(fieldCreateTemplate).
			Description("A CREATE TABLE statement to run instead of the generated one, for targets that need partitions, indexes or another key model. Placeholders: `{database}` and `{table}` (quoted names), `{columns}` (the column definitions, keys first), `{key_columns}` (the quoted key column names; a keyless target with this placeholder fails). `{table}` and `{columns}` are required. Use `CREATE TABLE IF NOT EXISTS`; an \"already exists\" answer counts as success anyway.").
			Example("CREATE TABLE IF NOT EXISTS {database}.{table} (\n{columns}\n) UNIQUE KEY({key_columns})\nAUTO PARTITION BY RANGE (date_trunc(`created_at`, 'month')) ()\nDISTRIBUTED BY HASH({key_columns}) BUCKETS 16\nPROPERTIES (\"replication_num\" = \"3\")").
			Optional(),
	).Description("Create missing targets from the messages' schema; see `enabled`. Prefixes and suffixes come from `table_identifier`, for example `ods.src_${! @table }`.")
}

func parseCreate(pc *service.ParsedConfig, c *config) error {
	ns := pc.Namespace(fieldCreateTables)
	var err error
	if c.create.enabled, err = ns.FieldBool(fieldCreateEnabled); err != nil {
		return fieldErr(fieldCreateTables+"."+fieldCreateEnabled, err)
	}
	b, err := ns.FieldString(fieldCreateBuckets)
	if err != nil {
		return fieldErr(fieldCreateTables+"."+fieldCreateBuckets, err)
	}
	if !strings.EqualFold(b, bucketsAuto) {
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 || n > 999999 {
			return fmt.Errorf("field %s.%s: create_tables.buckets must be auto or a positive number; got %q", fieldCreateTables, fieldCreateBuckets, b)
		}
		c.create.opts.Buckets = n
	}
	if c.create.opts.Properties, err = ns.FieldStringMap(fieldCreateProperties); err != nil {
		return fieldErr(fieldCreateTables+"."+fieldCreateProperties, err)
	}
	if ns.Contains(fieldCreateTemplate) {
		if c.create.opts.Template, err = ns.FieldString(fieldCreateTemplate); err != nil {
			return fieldErr(fieldCreateTables+"."+fieldCreateTemplate, err)
		}
		if err := ddl.CheckTemplate(c.create.opts.Template); err != nil {
			return fmt.Errorf("field %s.%s: %w", fieldCreateTables, fieldCreateTemplate, err)
		}
	}
	c.create.opts.SequenceColumn = c.seqCol
	return nil
}
