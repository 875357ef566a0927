package output

import (
	"fmt"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func evolutionField() *service.ConfigField {
	return service.NewObjectField(fieldSchemaEvolution,
		service.NewBoolField(fieldEvolveEnabled).
			Description("Follow the messages' `schema` metadata (as `doris_binlog` attaches it, or any input that sets a Redpanda Connect Common schema): a column the schema carries and the target lacks is added to the target (`ALTER TABLE ... ADD COLUMN`, a light schema change, nullable, with the source's exact Doris type when the messages carry `doris_schema` as `doris_binlog`'s do (`varchar(20)`, `decimal(20,4)`, `largeint`), else typed by the mapping below) before any row holding it is loaded, so its first value is never lost, across a crash between the ALTER and the load too (the restarted load finds the column there). A target column narrower than the schema's type is widened when Doris can (INT, SMALLINT, TINYINT to BIGINT; FLOAT to DOUBLE; a DECIMAL to more digits at the same scale; a VARCHAR shorter than the source's `doris_schema` VARCHAR or CHAR, to that length) and the change is waited for; any other mismatch (a narrowing, a type Doris cannot convert, a key column) stops the batch with an error naming the target, the column and both types. "+
				"Types of added columns: BOOLEAN, INT (INT32), BIGINT (INT64), FLOAT, DOUBLE, DECIMAL(p, s), STRING (STRING, BIG_DECIMAL, BYTE_ARRAY, TIME_OF_DAY), VARCHAR(36) (UUID), DATE, DATETIME / DATETIME(3) / DATETIME(6) (TIMESTAMP by unit), JSON (ANY), ARRAY, MAP<STRING, …>, STRUCT. "+
				"Whether enabled or not, a message whose schema has a column the target lacks is never loaded without it: with this off, the batch fails with a permanent error naming the target and the column, nothing after it is loaded, and once the column is added by hand the retried batch (or a restart) loads it. A column the schema lists but no message body of the batch holds (a processor removed it) has no value to lose and is not checked. Messages without `schema` metadata (or with a `schema` value that is not an object), and `format: csv` or `columns`, load as Doris does: JSON keys the table lacks are ignored, columns a row lacks get their default or NULL.").
			Default(false),
		service.NewBoolField(fieldEvolveDrop).
			Description("With `enabled`: drop a target column once the messages' schema no longer has it, after this run saw it in an earlier schema of the same target (a column the target has and the source never had, such as `sequence_column`, is never dropped; nor is a key column). Schema changes follow the stream's order: a message older (by `tso`) than the one that made a column go is loaded without it instead of adding it back, and a replayed batch whose label Doris already loaded is skipped before any schema change. A run that starts after the source dropped the column does not know the column was the source's and leaves it.").
			Default(false),
	).Description("Follow added and dropped source columns in the targets. See `enabled`.").
		Example(map[string]any{fieldEvolveEnabled: true}).
		Example(map[string]any{fieldEvolveEnabled: true, fieldEvolveDrop: true}).
		Advanced()
}

func parseEvolution(pc *service.ParsedConfig, c *config) error {
	var err error
	ns := pc.Namespace(fieldSchemaEvolution)
	if c.evolve, err = ns.FieldBool(fieldEvolveEnabled); err != nil {
		return fieldErr(fieldSchemaEvolution+"."+fieldEvolveEnabled, err)
	}
	if c.dropColumns, err = ns.FieldBool(fieldEvolveDrop); err != nil {
		return fieldErr(fieldSchemaEvolution+"."+fieldEvolveDrop, err)
	}
	if c.dropColumns && !c.evolve {
		return fmt.Errorf("field %s.%s needs %s.%s", fieldSchemaEvolution, fieldEvolveDrop, fieldSchemaEvolution, fieldEvolveEnabled)
	}
	return nil
}
