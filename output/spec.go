package output

import (
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Config field names. Options with a Stream Load header keep the header's
// name; the connection fields are those of doris_binlog.
const (
	fieldTableIdentifier = "table_identifier"
	fieldFormat          = "format"
	fieldColumns         = "columns"
	fieldPartialColumns  = "partial_columns"
	fieldMaxFilterRatio  = "max_filter_ratio"
	fieldStrictMode      = "strict_mode"
	fieldTimeout         = "timeout"
	fieldHeaders         = "headers"
	fieldCDC             = "cdc"
	fieldSequenceColumn  = "sequence_column"
	fieldLabelPrefix     = "label_prefix"
	fieldTwoPhaseCommit  = "two_phase_commit"
	fieldGroupCommit     = "group_commit"
	fieldRetryInOrder    = "retry_in_order"
	fieldRetries         = "request_retries"
	fieldConnectTimeout  = "request_connect_timeout"
	fieldReadTimeout     = "request_read_timeout"
	fieldBatching        = "batching"

	fieldSchemaEvolution = "schema_evolution"
	fieldEvolveEnabled   = "enabled"
	fieldEvolveDrop      = "drop_columns"

	// fieldAllowPlaintextRedirects lets an https FE send a load on to
	// plain http.
	fieldAllowPlaintextRedirects = "allow_plaintext_redirects"

	defaultLabelPrefix = "rpconnect_doris"
)

// managedHeaders are set by fields; passing them in headers would
// contradict the label, 2PC and CDC handling.
var managedHeaders = []string{
	"label", "format", "read_json_by_line", "strip_outer_array", "columns", "hidden_columns",
	"partial_columns", "max_filter_ratio", "strict_mode", "timeout", "two_phase_commit",
	"group_commit", "function_column.sequence_col", "expect", "authorization", "merge_type",
}

// Spec describes the doris_load output.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Beta().
		Categories("Services").
		Summary("Writes messages into Apache Doris tables with Stream Load, turning change events into upserts and deletes, with labels that make replays load nothing twice.").
		Description(specDescription).
		Fields(doris.FENodesField(), doris.UsernameField(), doris.PasswordField(),
			doris.TLSField("TLS for every connection to Doris: the FE HTTP port and the BEs it redirects loads to. With TLS enabled a redirect from `https` to plain `http` is refused, with an error that names both hosts, so the credentials and rows never leave unencrypted; see `allow_plaintext_redirects`."),
			service.NewBoolField(fieldAllowPlaintextRedirects).
				Description("Only with `tls.enabled`: follow a redirect from an `https` FE to a plain `http` BE. Stream Load sends the credentials (Basic auth) and the rows with every hop, so they then travel unencrypted; a warning is logged at start. Leave it false unless the BEs really serve HTTP without TLS while the FE uses it.").
				Advanced().
				Default(false)).
		Fields(targetFields()...).
		Fields(cdcFields()...).
		Field(createFields()).
		Fields(labelFields()...).
		Field(evolutionField()).
		Fields(requestFields()...).
		Field(service.NewOutputMaxInFlightField().Default(1).
			Description("The maximum number of batches loaded at once. Above 1, loads into one table may finish out of order, so a later change can be overwritten by an earlier one: keep 1 for change streams unless `sequence_column` is set or the targets only append.")).
		Field(service.NewBatchPolicyField(fieldBatching)).
		LintRule(specLintRule).
		Example("Replicate a database",
			"Follows every table of `shop` and applies each change to the table of the same name in `shop_replica`. Deletes become delete-sign rows; replays after a restart reuse the same labels.",
			exampleReplicate).
		Example("Load JSON lines from files",
			"Updates only the `status` and `updated_at` columns of existing orders from JSON lines files.",
			exampleFiles)
}

func targetFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewInterpolatedStringField(fieldTableIdentifier).
			Description("The target table, `db.table`, interpolated per message, so one stream can feed many tables: a batch is split by target, one Stream Load per target, and acked only when every load succeeded. Names with dots are backtick-quoted as in `doris_binlog`.").
			Example("shop_replica.${! @table }").
			Example("${! @database_schema }.${! @table }").
			Example("demo.orders"),
		service.NewStringField(fieldFormat).
			Description("The body format: `json` sends each message (a JSON object) as one line with `read_json_by_line`; `csv` sends each message as one line as it is, columns separated by the `column_separator` header (default `\\t`).").
			Default(formatJSON).
			LintRule(`root = if !["json", "csv"].contains(this.string().lowercase()) { [ "format must be one of json, csv; got %q".format(this.string()) ] }`),
		service.NewStringField(fieldColumns).
			Description("The Stream Load `columns` header: the columns the rows fill, in CSV order. `__DORIS_DELETE_SIGN__` and the sequence column are appended when needed.").
			Example("id,status,updated_at").
			Optional().
			LintRule(headerValueLint(fieldColumns)),
		service.NewBoolField(fieldPartialColumns).
			Description("Update only the listed `columns` of existing rows (merge-on-write UNIQUE KEY tables); needs `columns`.").
			Default(false),
		service.NewFloatField(fieldMaxFilterRatio).
			Description("The share of rows Doris may drop as malformed before it fails the load (0 to 1). Dropped rows are not retried.").
			Optional().
			LintRule(`root = if this < 0 || this > 1 { [ "max_filter_ratio must be between 0 and 1; got %v".format(this) ] }`),
		service.NewBoolField(fieldStrictMode).
			Description("The Stream Load `strict_mode` header: rows whose values fail conversion are filtered instead of loaded as NULL.").
			Optional(),
		service.NewDurationField(fieldTimeout).
			Description("The Stream Load `timeout`, rounded up to whole seconds: Doris aborts a load that runs longer. It also bounds each attempt of a load here, the upload of the body and the answer together: an attempt gets `timeout` plus `request_connect_timeout` (without `timeout`, `request_read_timeout` plus `request_connect_timeout`), then it counts as failed, the label's state is asked for, and the load is retried or the batch fails.").
			Example("600s").
			Optional(),
		service.NewStringMapField(fieldHeaders).
			Description("Further Stream Load headers, passed as they are, for example `column_separator` or `where`. Headers that fields set (`label`, `format`, `columns`, `two_phase_commit`, `group_commit`, …) are refused, and so are names that are not HTTP header names and values holding a line break or another control character (tab excepted), at start rather than at every load.").
			Example(map[string]any{"column_separator": ","}).
			Default(map[string]any{}),
	}
}

func cdcFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringField(fieldCDC).
			Description("Whether messages are change events. `auto`: a message with `operation` metadata is one. `true`: every message must be. `false`: none is, every message is a row to load and labels are random. For change events, `delete` becomes a row with `__DORIS_DELETE_SIGN__ = 1` (UNIQUE KEY targets only; a delete into a DUPLICATE KEY table fails the batch with an error naming the table), `read`, `insert`, `update` and `update_after` are upserts and `update_before` is dropped.").
			Default(cdcAuto).
			LintRule(`root = if !["auto", "true", "false"].contains(this.string().lowercase()) { [ "cdc must be one of auto, true, false; got %q".format(this.string()) ] }`),
		service.NewStringField(fieldSequenceColumn).
			Description("A BIGINT column of the target that receives each change's `tso`. The target must be a UNIQUE KEY table with that column as its sequence column (`\"function_column.sequence_col\" = \"<column>\"` in its PROPERTIES); the name is also sent as the `function_column.sequence_col` header. Doris then ignores a write, or a delete, older than the stored row, so a replayed or reordered older change never overwrites a newer one. Snapshot rows (`read`, no `tso`) get 0, older than any change. A message that already holds the column (replicating a table that is itself a replica) has its value replaced by the change's `tso`: the column is sent once, and it orders the changes of the stream being applied. Only with `format: json`.").
			Example("_src_tso").
			Optional().
			LintRule(headerValueLint(fieldSequenceColumn)),
	}
}

func labelFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringField(fieldLabelPrefix).
			Description("The start of every load label, from `[-_A-Za-z0-9:]`. When every message of a load carries `tso`, `lsn` and `operation`, and names its source with `database_schema` and `table` metadata (as `doris_binlog` messages do), the label is `<prefix>_<table>_<hash>_<first tso>-<first lsn><op>_<last tso>-<last lsn><op>_<count>`, where `<hash>` covers the target and the source tables, so two sources that reach the same positions never share a label in one target. Labels stay within Doris's rule (at most 128 characters from `[-_A-Za-z0-9:]`): the target name is shortened, or the whole label hashed, when it would not fit. The same rows replayed after a restart get the same label and Doris refuses to load them again. Otherwise (`cdc: false`, snapshot rows, messages of other inputs) the label is random and lives for one delivery of the batch: the in-place retries of `retry_in_order` reuse it, but a batch that fails back to Benthos (to a `fallback` output, or to be delivered again) leaves no label behind, so a later batch with equal rows is never skipped as already loaded; a redelivered batch may then load again the targets that had loaded (at-least-once).").
			Default(defaultLabelPrefix).
			LintRule(`root = if !this.string().re_match("^[-_A-Za-z0-9:]{1,64}$") { [ "label_prefix must be 1 to 64 characters from [-_A-Za-z0-9:]; got %q".format(this.string()) ] }`),
		service.NewBoolField(fieldTwoPhaseCommit).
			Description("Load every target of a batch with `two_phase_commit: true` and commit them through `/api/{db}/_stream_load_2pc` only after all of them loaded; on any error the pre-committed loads are aborted by transaction. Labels alone already make replays load nothing twice; two-phase commit adds that the targets of one batch become visible together, or not at all.").
			Default(false),
		service.NewStringField(fieldGroupCommit).
			Description("The Stream Load `group_commit` mode: `off_mode`, `sync_mode` (Doris merges small loads and answers once they are visible) or `async_mode` (Doris answers once the rows are in its write-ahead log). Doris refuses labels and two-phase commit with group commit, so replays may load twice.").
			Default(groupCommitOff).
			LintRule(`root = if !["off_mode", "sync_mode", "async_mode"].contains(this.string().lowercase()) { [ "group_commit must be one of off_mode, sync_mode, async_mode; got %q".format(this.string()) ] }`),
	}
}

func requestFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewBoolField(fieldRetryInOrder).
			Description("When a batch of change events fails to load (after `request_retries`), retry it here, with a backoff growing from 1s to 30s and an error logged per attempt, instead of failing it. A failed batch handed back to Benthos lets later batches load first, and an older change would overwrite a newer one. Errors that repeat on every attempt (a delete into a DUPLICATE KEY table, a message that is not a JSON object) still fail the batch. Set to false to fail batches instead, for example to route them to a `fallback` output; other messages always fail the batch.").
			Default(true),
		service.NewIntField(fieldRetries).
			Description("Attempts per request, across the `fenodes` in turn, on connection errors, attempts cut off by their deadline and 5xx answers, with jittered backoff. Every attempt reuses the label, so a load whose answer was lost is not loaded twice; when the last attempt gets no answer, the label's state decides whether the load counts as done.").
			Default(5).
			LintRule(`root = if this < 1 { [ "request_retries must be at least 1; got %d".format(this) ] }`),
		service.NewDurationField(fieldConnectTimeout).
			Description("Timeout for connecting to an FE or BE.").
			Default("30s"),
		service.NewDurationField(fieldReadTimeout).
			Description("How long to wait for the answer once a load's body is sent, and for the answer of every other request (label state, commit, abort), whose attempts end after `request_connect_timeout` plus this. Loads in doubt are then looked up by label.").
			Default("10m"),
	}
}

// headerCtl matches what badHeaderValue refuses.
const headerCtl = `"[\\x00-\\x08\\x0a-\\x1f\\x7f]"`

// headerValueLint refuses a field sent as a header whose value HTTP cannot
// carry; the constructor checks the same (checkHeaders).
func headerValueLint(field string) string {
	return `root = if this.string().re_match(` + headerCtl + `) { [ "` + field + ` holds a line break or control character, which the Stream Load header it is sent in cannot carry" ] }`
}

// headersLint is part of the config's lint rule: a map field's own rule
// runs on each value, without the key.
var headersLint = `let names = this.headers.or({}).keys().filter(k -> !k.re_match("^[-!#$%&'*+.^_` + "`" + `|~0-9A-Za-z]+$")).map_each(k -> "headers: %q is not a valid HTTP header name".format(k))
let values = this.headers.or({}).key_values().filter(kv -> kv.value.string().re_match(` + headerCtl + `)).map_each(kv -> "headers.%s holds a line break or control character, which an HTTP header cannot carry".format(kv.key))
`

func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = `"` + x + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}

var specLintRule = headersLint + `let hdr = this.headers.or({}).keys().filter(k -> ` + quotedList(managedHeaders) + `.contains(k.lowercase())).map_each(k -> "headers.%s is set by doris_load itself; use its field instead".format(k))
let gc = this.group_commit.or("off_mode").string().lowercase()
root = [
  if $gc != "off_mode" && this.two_phase_commit.or(false) { "two_phase_commit cannot be combined with group_commit %s: Doris refuses two-phase commit in group commit".format($gc) } else { "" },
  if $gc != "off_mode" && this.label_prefix.or("rpconnect_doris") != "rpconnect_doris" { "label_prefix cannot be combined with group_commit %s: Doris refuses labels in group commit".format($gc) } else { "" },
  if this.partial_columns.or(false) && this.columns.or("") == "" { "partial_columns needs columns: the columns each row updates" } else { "" },
  if this.sequence_column.or("") != "" && this.format.or("json").string().lowercase() != "json" { "sequence_column needs format json" } else { "" },
  if this.schema_evolution.drop_columns.or(false) && !this.schema_evolution.enabled.or(false) { "schema_evolution.drop_columns needs schema_evolution.enabled" } else { "" },
  if $gc == "off_mode" && this.cdc.or("auto").string().lowercase() != "false" && this.batching.period.or("") != "" { "batching.period cuts batches by time, so a batch replayed after a restart may hold other rows, get another label and load twice: leave batching to the input (doris_binlog's batch_size), or set cdc: false when the messages carry no source positions" } else { "" },
].merge($hdr).merge($names).merge($values)`
