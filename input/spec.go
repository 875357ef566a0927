package input

import (
	"strconv"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
)

// Config field names: the Doris connector option minus its `source.`/`doris.`
// prefix, with `.` and `-` turned into `_`.
const (
	fieldFENodes                   = doris.FieldFENodes
	fieldTableIdentifier           = "table_identifier"
	fieldTables                    = "tables"
	fieldInclude                   = "include"
	fieldExclude                   = "exclude"
	fieldDiscoveryInterval         = "table_discovery_interval"
	fieldUsername                  = doris.FieldUsername
	fieldPassword                  = doris.FieldPassword
	fieldJDBCURL                   = "jdbc_url"
	fieldScanMode                  = "scan_mode"
	fieldScanTimestamp             = "scan_timestamp"
	fieldIncrementType             = "binlog_increment_type"
	fieldPollInterval              = "binlog_poll_interval"
	fieldVisibleWaitTimeout        = "binlog_visible_wait_timeout"
	fieldOffsetTable               = "binlog_offset_table"
	fieldConsumerID                = "binlog_consumer_id"
	fieldOnExpired                 = "binlog_on_expired"
	fieldMergeUpdates              = "binlog_merge_updates"
	fieldIgnoreUpdateBefore        = "binlog_ignore_update_before"
	fieldBinlogFilter              = "binlog_filter"
	fieldUseFlightSQL              = "use_flight_sql"
	fieldFlightSQLPort             = "flight_sql_port"
	fieldReadField                 = "read_field"
	fieldFilterQuery               = "filter_query"
	fieldRequestTabletSize         = "request_tablet_size"
	fieldBatchSize                 = "batch_size"
	fieldMaxParallelSnapshotSplits = "max_parallel_snapshot_splits"
	fieldMaxParallelSnapshotTables = "max_parallel_snapshot_tables"
	fieldQueryTimeout              = "request_query_timeout"
	fieldExecMemLimit              = "exec_mem_limit"
	fieldRetries                   = "request_retries"
	fieldConnectTimeout            = "request_connect_timeout"
	fieldReadTimeout               = "request_read_timeout"
	fieldDebugMetadata             = "debug_metadata"
	fieldTLS                       = doris.FieldTLS
	fieldCheckpointCache           = "checkpoint_cache"
	fieldCheckpointKey             = "checkpoint_cache_key"
	fieldCheckpointLimit           = "checkpoint_limit"
	fieldBatching                  = "batching"
)

// Spec describes the doris_binlog input.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Stable().
		Categories("Services").
		Summary("Reads Apache Doris tables' snapshots over Arrow Flight SQL and then follows their Doris 5.0 Row Binlog (`@incr` queries) in one commit order.").
		Description(specDescription).
		Fields(connectionFields()...).
		Fields(selectionFields()...).
		Fields(modeFields()...).
		Fields(binlogFields()...).
		Fields(readFields()...).
		Fields(requestFields()...).
		Fields(checkpointFields()...).
		Field(service.NewBatchPolicyField(fieldBatching)).
		Field(service.NewAutoRetryNacksToggleField()).
		LintRule(specLintRule).
		Example("Snapshot to stdout",
			"Reads the current content of one table once and stops.",
			exampleSnapshot).
		Example("Snapshot then binlog with a file checkpoint",
			"Reads the table, then follows every change. The position survives restarts in a `file` cache.",
			exampleInitial).
		Example("Latest changes with an offset table",
			"Follows only changes committed after the first start and publishes the end of each finished window to a Doris offset table, for monitoring.",
			exampleLatest)
}

func connectionFields() []*service.ConfigField {
	return []*service.ConfigField{
		doris.FENodesField(),
		doris.UsernameField(),
		doris.PasswordField(),
		service.NewStringField(fieldJDBCURL).
			Description("MySQL-protocol address of a Doris FE, `jdbc:mysql://host:port[/db][?k=v]`. Only used to publish to `binlog_offset_table`; the value is never repeated in error messages because it may hold credentials.").
			Example("jdbc:mysql://127.0.0.1:9030").
			Optional().
			LintRule(jdbcLint),
		doris.TLSField("TLS for every connection to Doris: FE HTTP, Arrow Flight SQL and the MySQL protocol."),
	}
}

func selectionFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringField(fieldTableIdentifier).
			Description("One table to read, as `db.table`; backtick-quote a part that holds a dot, a space or a backtick (`` `my.db`.`orders` ``). Exactly one of `table_identifier`, `tables` and `include` is set.").
			Example("shop.orders").
			Optional().
			LintRule(dbTableLint(fieldTableIdentifier)),
		service.NewStringListField(fieldTables).
			Description("Several tables to read, each `db.table` as in `table_identifier`. A listed table without row binlog stops the input (in modes with a binlog phase).").
			Example([]string{"shop.orders", "shop.customers"}).
			Optional(),
		service.NewStringListField(fieldInclude).
			Description("Regular expressions (Go RE2 syntax) matched against each table's whole `db.table` name, as if anchored with `^...$`: every table that matches one of them, and no `exclude` pattern, is read. Tables are listed with `SHOW DATABASES` and `SHOW TABLES` as the user sees them, and listed again every `table_discovery_interval`. A matched table without row binlog, or that is not a DUPLICATE KEY or merge-on-write UNIQUE KEY table, is skipped with one warning and checked again at each discovery.").
			Example([]string{`shop\..*`}).
			Example([]string{`shop\.orders`, `crm\.(customers|contacts)`}).
			Optional(),
		service.NewStringListField(fieldExclude).
			Description("Regular expressions removing tables from what `include` matched, matched the same way. Only valid with `include`.").
			Example([]string{`shop\.tmp_.*`}).
			Optional(),
		service.NewDurationField(fieldDiscoveryInterval).
			Description("How often the databases and tables are listed again while the binlog is followed. A new table that the selection names or matches joins the stream: in `initial` mode it gets its own snapshot and then its changes from the moment it was found; in `latest` and `from-timestamp` it streams from the moment it was found. A dropped table leaves the stream and the checkpoint with a warning; one dropped and created again is a new table. `0s` lists the tables only at start.").
			Default("1m").
			LintRule(minDurationLint(fieldDiscoveryInterval, 0, "must not be negative")),
	}
}

func modeFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringField(fieldScanMode).
			Description("What to read (case-insensitive): `snapshot` reads the table once and stops; `initial` reads the table and then follows the binlog from the moment the input started; `latest` follows the binlog from the moment the input first started; `from-timestamp` follows the binlog from `scan_timestamp`.").
			Default("snapshot").
			LintRule(enumLint(fieldScanMode, "snapshot", "initial", "latest", "from-timestamp")),
		service.NewStringField(fieldScanTimestamp).
			Description("Inclusive start of the binlog in `from-timestamp` mode, `yyyy-MM-dd HH:mm:ss` on the wall clock of the Doris FE's `time_zone` (the global `@@time_zone`), so a `binlog_offset_table` `offset_timestamp` can be copied here as is. It is converted to an instant once at the first start by asking the FE. A time in a repeated hour (daylight-saving fall-back) means its first occurrence, so changes are read again rather than skipped; a time the clocks skip (spring-forward gap) is a config error. Only valid with `scan_mode: from-timestamp`, where it is required.").
			Example("2025-10-09 08:53:20").
			Optional().
			LintRule(timestampLint(fieldScanTimestamp)),
	}
}

func binlogFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringField(fieldIncrementType).
			Description("The `@incr` increment type (case-insensitive): `detail` emits every change; `min_delta` emits the net change per key for each window (needs `binlog.need_historical_value=true` on UNIQUE tables); `append_only` emits inserts only. DUP tables always behave as `append_only`.").
			Default("detail").
			LintRule(enumLint(fieldIncrementType, "detail", "min_delta", "append_only")),
		service.NewDurationField(fieldPollInterval).
			Description("How often a new binlog window is read. At least 1s.").
			Default("10s").
			LintRule(minDurationLint(fieldPollInterval, 1e9, "must be at least 1 second")),
		service.NewDurationField(fieldVisibleWaitTimeout).
			Description("How long a window Doris is not ready to serve yet (errors 5100/5101) is retried before the input fails. `0s` disables retries; negative values are rejected.").
			Default("5m").
			LintRule(minDurationLint(fieldVisibleWaitTimeout, 0, "must not be negative")),
		service.NewStringField(fieldOffsetTable).
			Description("Optional Doris table, `db.table`, to which the end of each finished binlog window is upserted for monitoring (`consumer_id`, `offset_timestamp`, `update_time`). `offset_timestamp` is `yyyy-MM-dd HH:mm:ss` on the wall clock of the Doris FE's `time_zone`, the zone of `scan_timestamp`, so it can be copied into `scan_timestamp` to resume by hand while that point is retained (in a repeated hour it names the hour's first pass, which re-reads rather than skips). It is never read back. Requires `binlog_consumer_id` and `jdbc_url`.").
			Example("ops.source_offsets").
			Optional().Advanced().
			LintRule(dbTableLint(fieldOffsetTable)),
		service.NewStringField(fieldConsumerID).
			Description("The `consumer_id` row written to `binlog_offset_table`. Set together with `binlog_offset_table`. When set it is also the default `checkpoint_cache_key`.").
			Optional().Advanced(),
		service.NewStringField(fieldOnExpired).
			Description("What to do when the next binlog window starts before the oldest change Doris still retains (`binlog.ttl_seconds`): `continue` logs an error naming the lost period, increments `doris_binlog_expired_gaps_total` and goes on from the first retained change; `fail` stops the input without moving the checkpoint. `min_delta` always fails, because Doris refuses expired reads.").
			Default("continue").
			LintRule(enumLint(fieldOnExpired, "continue", "fail")),
		service.NewBoolField(fieldMergeUpdates).
			Description("Turn each `update_before`/`update_after` pair into one message with `operation: update`: the body is the after-image and the before-image is the structured metadata `before` (an object, read it with `@before`). The two halves share TSO and LSN and always arrive in the same window, so nothing waits; the merged message's position is the `update_after`'s, so a checkpoint never points between the halves. A half pair (with `binlog_filter`, see there) is delivered unmerged with its own operation and counted in `doris_binlog_unpaired_updates_total`; a warning names it, at most once a minute per table. Conflicts with `binlog_ignore_update_before`.").
			Default(false),
		service.NewBoolField(fieldIgnoreUpdateBefore).
			Description("Drop `update_before` rows in Doris, before transfer: every `@incr` query gets `WHERE __DORIS_BINLOG_OP__ <> 2`. Updates then arrive as `update_after` alone. Conflicts with `binlog_merge_updates`, which needs both halves.").
			Default(false),
		service.NewStringField(fieldBinlogFilter).
			Description("A boolean SQL condition added to every `@incr` query as `WHERE (<binlog_filter>)`, so Doris filters changes before transfer. It may use the table's columns and the hidden `__DORIS_BINLOG_OP__` (0 insert, 1 delete, 2 update_before, 3 update_after). It must be one condition: no `;`, no comments, no top-level UNION/ORDER BY/LIMIT. " +
				"Each row of an update is tested on its own: an update whose before-image matches and whose after-image does not (or the reverse) arrives as half a pair, and `binlog_merge_updates` delivers that half unmerged with a warning and `doris_binlog_unpaired_updates_total`. Only valid with a binlog phase; `filter_query` is the snapshot's filter.").
			Example("amount > 100").
			Example("region IN ('eu', 'us')").
			Optional().
			LintRule(filterExprLint(fieldBinlogFilter)),
	}
}

// filterExprLint mirrors doris.ValidateFilterExpression's main rules for
// lint (a test holds them to the same answers on the common cases): quoted
// text is removed first, then no ';', no comment and no top-level clause
// keyword may remain. The constructor runs the full check.
func filterExprLint(field string) string {
	return `let bare = this.string().re_replace_all("'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"|` + "`[^`]*`" + `", "''")
root = if this.string().trim() == "" { [ "` + field + ` must not be empty" ] } else if $bare.contains(";") { [ "` + field + `: statement separator ';' is not allowed" ] } else if $bare.re_match("--|#|/\\*|\\*/") { [ "` + field + `: comments are not allowed" ] } else if $bare.re_match("(?i)\\b(UNION|INTERSECT|EXCEPT|MINUS|ORDER|GROUP|HAVING|LIMIT|INTO|QUALIFY|WINDOW)\\b") && !$bare.re_match("\\(") { [ "` + field + `: must be one condition, without UNION, ORDER BY, LIMIT or similar" ] }`
}

func readFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewBoolField(fieldUseFlightSQL).
			Description("Read over Arrow Flight SQL. Must be true whenever a binlog phase is configured, which is the only supported read path.").
			Default(true).Advanced(),
		service.NewIntField(fieldFlightSQLPort).
			Description("The FE Arrow Flight SQL port. 0 discovers it with `SHOW FRONTENDS`.").
			Default(0).Advanced().
			LintRule(`root = if this < 0 || this > 65535 { [ "flight_sql_port must be 0 (discover) or 1..65535; got %v".format(this) ] }`),
		service.NewStringField(fieldReadField).
			Description("Comma-separated column names to read, unquoted. All columns when unset.").
			Example("id,status,amount").
			Optional().
			LintRule(`root = if this.split(",").any(c -> c.trim() == "") { [ "read_field must be a comma-separated list of column names; got %q".format(this) ] }`),
		service.NewStringField(fieldFilterQuery).
			Description("A SQL condition applied to the snapshot (`WHERE <filter_query>`). Only valid with `scan_mode: snapshot`.").
			Example("status = 'paid'").
			Optional().
			LintRule(filterExprLint(fieldFilterQuery)),
		service.NewIntField(fieldRequestTabletSize).
			Description("Tablets per snapshot split: each split reads at most this many tablets in one `TABLET(...)` query. " +
				"A table has one tablet per partition and bucket (30 daily partitions × 16 buckets is 480 tablets), and `_query_plan` " +
				"lists every tablet of every partition once. Tablets are grouped by count only, in ascending tablet id order per backend, " +
				"so every tablet is read exactly once, whatever the value; a split may hold tablets of more than one partition, " +
				"but never more than `request_tablet_size` tablets. Larger values mean fewer, longer splits.").
			Example(1).Example(16).
			Default(1).Advanced().
			LintRule(minIntLint(fieldRequestTabletSize)),
		service.NewIntField(fieldBatchSize).
			Description("Maximum number of rows per emitted batch.").
			Default(4064).
			LintRule(minIntLint(fieldBatchSize)),
		service.NewIntField(fieldMaxParallelSnapshotSplits).
			Description("How many snapshot splits of one table are read at the same time, each on its own Flight SQL session.").
			Default(2).Advanced().
			LintRule(minIntLint(fieldMaxParallelSnapshotSplits)),
		service.NewIntField(fieldMaxParallelSnapshotTables).
			Description("How many tables are snapshotted at the same time. At most `max_parallel_snapshot_tables` × `max_parallel_snapshot_splits` snapshot sessions are open at once.").
			Default(1).Advanced().
			LintRule(minIntLint(fieldMaxParallelSnapshotTables)),
	}
}

func requestFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewDurationField(fieldQueryTimeout).
			Description("Doris query timeout for snapshot and binlog reads.").
			Default("6h").Advanced().
			LintRule(minDurationLint(fieldQueryTimeout, 1, "must be positive")),
		service.NewStringField(fieldExecMemLimit).
			Description("Doris memory limit per query: plain bytes or a number with the unit `b`, `k`, `kb`, `m`, `mb`, `g` or `gb` (case-insensitive, powers of 1024).").
			Default("8192mb").Advanced().
			LintRule(`root = if !this.string().re_match("^(?i)0*[1-9][0-9]*\\s*(b|k|kb|m|mb|g|gb)?$") { [ "exec_mem_limit must be bytes or a size such as 8192mb; got %q".format(this.string()) ] }`),
		service.NewIntField(fieldRetries).
			Description("Attempts per FE REST request.").
			Default(3).Advanced().
			LintRule(minIntLint(fieldRetries)),
		service.NewDurationField(fieldConnectTimeout).
			Description("Connect timeout for Doris requests.").
			Default("60s").Advanced().
			LintRule(minDurationLint(fieldConnectTimeout, 1, "must be positive")),
		service.NewDurationField(fieldReadTimeout).
			Description("Read timeout for Doris REST requests.").
			Default("60s").Advanced().
			LintRule(minDurationLint(fieldReadTimeout, 1, "must be positive")),
		service.NewBoolField(fieldDebugMetadata).
			Description("Adds `doris_window_start` and `doris_window_end` (strings, `yyyy-MM-dd HH:mm:ss`) to every binlog message: the `@incr` window it was read in. For debugging; off by default because every row pays for the two keys.").
			Default(false).Advanced(),
	}
}

func checkpointFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringField(fieldCheckpointCache).
			Description("The cache resource holding the position. Required with `initial`, `latest` and `from-timestamp`; optional with `snapshot`, where it lets a restarted snapshot skip the tablets already delivered. Use a persistent cache such as `file`.").
			Optional(),
		service.NewStringField(fieldCheckpointKey).
			Description("The key under which the position of every selected table is stored (plus `<key>.bak`). Must be unique per pipeline sharing a cache, and a valid file name for the `file` cache. Defaults to `binlog_consumer_id` when set; else, for a single table (`table_identifier` or a one-entry `tables`), `doris_binlog_<db>_<table>`; else `doris_binlog_` and 12 hex digits of the SHA-256 of the selection (the sorted table list, or the patterns), so that changing the selection changes the key. Characters outside `[A-Za-z0-9._-]` are replaced by `_`.").
			Optional().Advanced().
			LintRule(`root = if this.string() == "" { [ "checkpoint_cache_key must not be empty" ] }`),
		service.NewIntField(fieldCheckpointLimit).
			Description("Maximum number of messages delivered but not yet acknowledged. Reading pauses at this limit.").
			Default(1024).Advanced().
			LintRule(minIntLint(fieldCheckpointLimit)),
	}
}

// Lint rules. Each message names its field so that a lint report can be
// acted on without reading the docs.

func enumLint(field string, opts ...string) string {
	quoted := make([]string, len(opts))
	for i, o := range opts {
		quoted[i] = strconv.Quote(o)
	}
	msg := field + " must be one of " + strings.Join(opts, ", ") + "; got %q"
	return `root = if ![` + strings.Join(quoted, ", ") + `].contains(this.string().lowercase()) { [ ` +
		strconv.Quote(msg) + `.format(this.string()) ] }`
}

// Lint rules use only core Bloblang methods: plugin methods such as
// parse_duration may not be registered yet when Spec() runs in an init().

func timestampLint(field string) string {
	return `let s = this.string()
let ok = $s.re_match("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$")
let ymd = if $ok { $s.split(" ").index(0).split("-").map_each(p -> p.number()) } else { [1, 1, 1] }
let y = $ymd.index(0)
let leap = $y % 4 == 0 && ($y % 100 != 0 || $y % 400 == 0)
let days = if $ymd.index(1) == 2 { if $leap { 29 } else { 28 } } else if [4, 6, 9, 11].contains($ymd.index(1)) { 30 } else { 31 }
root = if !$ok || $ymd.index(2) > $days { [ ` + strconv.Quote(field+" must match yyyy-MM-dd HH:mm:ss; got %q") + `.format($s) ] }`
}

// durationNs evaluates a Go duration string to nanoseconds in Bloblang;
// $ok is false when the string is not one.
const durationNs = `let s = this.string()
let ok = $s == "0" || $s.re_match("^[-+]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$")
let units = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 1000000, "s": 1000000000, "m": 60000000000, "h": 3600000000000}
let abs = if $ok && $s != "0" { $s.re_find_all_submatch("([0-9]*\\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)").map_each(g -> g.index(1).number() * $units.get(g.index(2))).sum() } else { 0 }
let ns = if $s.has_prefix("-") { 0 - $abs } else { $abs }
`

func minDurationLint(field string, minNs int64, what string) string {
	return durationNs + `root = if !$ok { [ ` +
		strconv.Quote(field+" must be a duration such as 10s; got %q") + `.format($s) ] } ` +
		`else if $ns < ` + strconv.FormatInt(minNs, 10) + ` { [ ` +
		strconv.Quote(field+" "+what+"; got %q") + `.format($s) ] }`
}

// Lists are linted by the spec-wide rule: a field rule on a list sees one
// element at a time, without its index.

// patternLint compiles each pattern of a list field as Go does (re_match
// uses Go's regexp) and lists the index and reason of any that fails.
func patternLint(field string) string {
	return `this.` + field + `.or([]).enumerated().map_each(e -> "".re_match(e.value.string()).catch(err -> ` +
		strconv.Quote(field+" pattern %d (%q) is not a valid regular expression: %s") +
		`.format(e.index, e.value.string(), err))).filter(r -> r.type() == "string")`
}

// tablesLint checks that every tables entry is db.table.
const tablesLint = `this.tables.or([]).enumerated().map_each(e -> if !e.value.string().re_match("` + dbTableRe + `") { ` +
	`"tables entry %d must be db.table; got %q".format(e.index, e.value.string()) } else { "" }).filter(m -> m != "")`

func minIntLint(field string) string {
	return `root = if this < 1 { [ ` + strconv.Quote(field+" must be at least 1; got %v") + `.format(this) ] }`
}

// dbTableRe is a Bloblang string literal body matching db.table, each part
// bare or backtick-quoted, as doris.ParseTableIdentifier accepts.
const dbTableRe = `^(` + "`(``|[^`])+`" + `|[^.\\s` + "`" + `]+)\\.(` + "`(``|[^`])+`" + `|[^.\\s` + "`" + `]+)$`

func dbTableLint(field string) string {
	return `root = if !this.string().re_match("` + dbTableRe + `") { [ ` +
		strconv.Quote(field+" must be db.table; got %q") + `.format(this.string()) ] }`
}

// jdbcLint never echoes the URL: its query string may carry a password.
// jdbcLint mirrors doris.ParseJDBCURL, the one rule for jdbc_url (a test
// holds them to the same answers): a case-insensitive prefix, one host, a
// required port, an optional database and key=value parameters. It never
// echoes the URL: its query string may carry a password.
const jdbcLint = `let ok = this.string().re_match("(?i)^jdbc:mysql://(\\[[0-9A-Fa-f:.]+\\]|[^:/?\\s\\[\\],@]+):[0-9]{1,5}(/[^/?\\s]*)?(\\?[^=&\\s]+=[^&\\s]*(&[^=&\\s]+=[^&\\s]*)*)?$")
let port = if $ok { this.string().re_replace_all("(?i)^jdbc:mysql://(\\[[^\\]]*\\]|[^:/?]*):([0-9]+).*$", "$2").number() } else { 0 }
root = if !$ok { [ "jdbc_url must look like jdbc:mysql://host:port[/db][?k=v]" ] } else if $port < 1 || $port > 65535 { [ "jdbc_url has a port outside 1..65535" ] }`

var specLintRule = `let lists = [` + tablesLint + `, ` + patternLint(fieldInclude) + `, ` + patternLint(fieldExclude) + `].flatten()
let mode = this.scan_mode.or("snapshot").string().lowercase()
let incr = ["initial", "latest", "from-timestamp"].contains($mode)
let offset = this.binlog_offset_table.or("") != ""
let consumer = this.binlog_consumer_id.or("") != ""
let selected = [this.table_identifier.or("") != "", this.tables.or([]).length() > 0, this.include.or([]).length() > 0].filter(v -> v).length()
root = [
  if $selected != 1 { "exactly one of table_identifier, tables and include must be set" } else { "" },
  if this.exclude.or([]).length() > 0 && this.include.or([]).length() == 0 { "exclude is only valid together with include" } else { "" },
  if this.scan_timestamp.or("") != "" && $mode != "from-timestamp" { "scan_timestamp is only valid in from-timestamp mode" } else { "" },
  if $mode == "from-timestamp" && this.scan_timestamp.or("") == "" { "scan_timestamp is required when scan_mode is from-timestamp" } else { "" },
  if $incr && this.filter_query.or("") != "" { "incremental scan modes (initial, latest, from-timestamp) do not support filter_query" } else { "" },
  if this.binlog_filter.or("") != "" && !$incr { "binlog_filter is only valid in incremental scan modes (initial, latest, from-timestamp)" } else { "" },
  if this.binlog_merge_updates.or(false) && this.binlog_ignore_update_before.or(false) { "binlog_merge_updates and binlog_ignore_update_before conflict: merging needs the update_before rows" } else { "" },
  if $incr && this.use_flight_sql.or(true) == false { "incremental scan modes require use_flight_sql=true" } else { "" },
  if $offset != $consumer { "binlog_offset_table and binlog_consumer_id must be configured together" } else { "" },
  if $offset && !$incr { "binlog_offset_table is only valid in incremental scan modes" } else { "" },
  if $offset && this.jdbc_url.or("") == "" { "jdbc_url is required when binlog_offset_table is configured" } else { "" },
  if $incr && this.checkpoint_cache.or("") == "" { "checkpoint_cache is required when scan_mode is " + $mode } else { "" },
].merge($lists)`

const specDescription = `
The input plans each table's tablets through the FE REST API and reads them over Arrow Flight SQL. With a binlog phase it then reads the tables' Doris 5.0 Row Binlog in windows ` + "`[start, end)`" + ` of whole seconds, shared by all streaming tables: one ` + "`@incr`" + ` query per table, window and poll interval. Window bounds are the Doris clock (the physical time of ` + "`/api/tso`" + `) floored to the second and written in UTC; every Flight session the input opens runs with ` + "`time_zone = '+00:00'`" + `, so Doris reads the bounds as UTC. Consecutive windows neither overlap nor leave gaps, and daylight-saving changes of the FE's zone never move them backwards or skip.

== Many tables

Set exactly one of ` + "`table_identifier`" + `, ` + "`tables`" + ` and ` + "`include`" + ` (with optional ` + "`exclude`" + `). The tables' results of a window are merged as streams in ` + "`(TSO, table, LSN, OP)`" + ` order, ` + "`table`" + ` being the ` + "`db.table`" + ` name, so a transaction that changed several tables arrives as one contiguous run with one TSO. Every ` + "`table_discovery_interval`" + ` the tables are listed again: a new table joins (in ` + "`initial`" + ` mode with its own snapshot, then its own binlog from the moment it was found until it reaches the shared windows; its catch-up events can arrive after newer events of other tables), a dropped table leaves with one warning, and a table whose tablets are all new (dropped and created again, or truncated) starts over as a new table. A partition that vanished (DROP PARTITION, dynamic partition expiry) is reported with a warning and ` + "`doris_binlog_dropped_partitions_total`" + `, because Doris writes no change records for its rows.

A poll costs one ` + "`@incr`" + ` query per streaming table, each on its own Flight session; Flight sessions count toward Doris's ` + "`max_user_connections`" + `.

== Scan modes

- ` + "`snapshot`" + ` (default): reads the table once, then the input ends.
- ` + "`initial`" + `: takes the stream start, reads the snapshot, then follows the binlog from the stream start. Changes committed while the snapshot is read can arrive in both phases.
- ` + "`latest`" + `: follows the binlog from the moment the input first started.
- ` + "`from-timestamp`" + `: follows the binlog from ` + "`scan_timestamp`" + ` (inclusive, on the FE's wall clock).

The table needs ` + "`\"binlog.enable\" = \"true\"`" + ` with the ROW format for every mode except ` + "`snapshot`" + `.

== Delivery semantics

Delivery is at least once. The position (per table: phase and snapshot tablets done; the shared binlog window and its last delivered row) is written under one key to ` + "`checkpoint_cache`" + ` only after the messages before it are acknowledged, so a restart never skips an unacknowledged row. Binlog rows are emitted in ` + "`(TSO, table, LSN, OP)`" + ` order, i.e. commit order, with ` + "`update_before`" + ` ahead of its ` + "`update_after`" + `. After a restart the interrupted window is read again from its start and the rows up to the last acknowledged ` + "`(TSO, table, LSN, OP)`" + ` are skipped. A checkpoint of the single-table input of earlier builds (version 1) is carried over. Rows written by an output but not yet acknowledged when the process was killed may be delivered again, at most ` + "`checkpoint_limit`" + ` messages.

The position is saved under ` + "`checkpoint_cache_key`" + ` and, first, under ` + "`<key>.bak`" + `, so a write torn by a crash leaves one intact copy. A checkpoint that cannot be read fails the input loudly instead of starting over.

With ` + "`auto_replay_nacks: true`" + ` (default) Benthos retries rejected batches itself. With ` + "`auto_replay_nacks: false`" + ` a rejected (nacked) batch rewinds the input to the last committed checkpoint and everything after it is read again in order: nothing is lost, and the duplicates are bounded by what was in flight. After a rewind the next batches are sent one at a time. In the snapshot phase the unit of progress is a split, so an output that rejects some batch of every split forever makes no progress; keep ` + "`auto_replay_nacks: true`" + ` for such outputs.

== Binlog expiry

Doris drops binlog records older than the table's ` + "`binlog.ttl_seconds`" + `. If the input was stopped longer than that, the next window starts before the oldest retained change. See ` + "`binlog_on_expired`" + `: ` + "`continue`" + ` logs the lost period and goes on from the first retained change, ` + "`fail`" + ` stops. To recover completely, delete the checkpoint (both keys) or choose a new ` + "`checkpoint_cache_key`" + ` and restart with ` + "`scan_mode: initial`" + `.

== Checkpoint caches

The ` + "`memory`" + ` cache is not durable and, by default, expires entries 5 minutes after their last update (` + "`default_ttl`" + `), which silently loses the position of an idle table; set ` + "`compaction_interval: \"\"`" + ` when using it for tests. Use the ` + "`file`" + ` cache for real pipelines. Give every pipeline sharing a cache its own ` + "`checkpoint_cache_key`" + `.

== Connection test

The connection test checks, without reading data, that every FE answers with the configured credentials, that every selected table exists and, with a binlog phase, has a row binlog the mode can read, and that a Flight SQL session opens; each failure names the FE, the table or the Flight SQL server.

== Metadata

Every message carries:

- ` + "`operation`" + `: ` + "`read`" + ` (snapshot), ` + "`insert`" + `, ` + "`delete`" + `, ` + "`update_before`" + `, ` + "`update_after`" + `, and ` + "`update`" + ` with ` + "`binlog_merge_updates`" + `
- ` + "`before`" + ` (object, merged updates only): the before-image of an ` + "`update`" + `
- ` + "`database_schema`" + `, ` + "`table`" + `: the source table
- ` + "`schema`" + ` (immutable, benthos ` + "`public/schema`" + ` form): the selected columns in body order with their types and nullability, built once per table schema and replaced after ADD or DROP COLUMN
- ` + "`key_columns`" + ` (immutable): the UNIQUE KEY columns, empty for DUPLICATE KEY tables

Binlog rows also carry:

- ` + "`tso`" + ` (int64): the commit TSO. It exceeds 2^53, so JavaScript consumers should read it as a string or use ` + "`transaction_id`" + `.
- ` + "`lsn`" + ` (int64): the record's position inside its transaction
- ` + "`commit_ts_ms`" + ` (int64): the commit time in epoch milliseconds (the TSO's physical part)
- ` + "`source_ts_ms`" + ` (int64): equal to ` + "`commit_ts_ms`" + `, since a Doris commit has one time
- ` + "`transaction_id`" + ` (string): the TSO in decimal; one TSO is one transaction
- ` + "`doris_window_start`" + `, ` + "`doris_window_end`" + ` (with ` + "`debug_metadata`" + ` only; strings, ` + "`yyyy-MM-dd HH:mm:ss`" + ` in **UTC**, whatever the FE's ` + "`time_zone`" + `): the window the row was read in. UTC is the zone Doris parsed them in, and it has no repeated or skipped hours

Numeric keys are typed: Bloblang ` + "`@tso`" + ` is a number, ` + "`meta(\"tso\")`" + ` its exact decimal string.

== Values

The body is a JSON object of the selected columns; the hidden ` + "`__DORIS_*`" + ` columns never appear in it. DECIMAL values are exact strings keeping the column's scale (` + "`\"12.30\"`" + `), LARGEINT an exact integer string, DATETIME(p) ` + "`yyyy-MM-dd HH:mm:ss`" + ` with exactly p fractional digits on the Doris wall clock, as stored (the FE's ` + "`time_zone`" + ` never shifts it), DATE ` + "`yyyy-MM-dd`" + `. Deletes carry the deleted row, updates the before and after images as separate messages (with ` + "`detail`" + `), or one ` + "`update`" + ` message with ` + "`binlog_merge_updates`" + `.
`

const exampleSnapshot = `
input:
  doris_binlog:
    fenodes: 127.0.0.1:8030
    table_identifier: shop.orders
    username: root
    password: ""
    scan_mode: snapshot
output:
  stdout: {}
`

const exampleInitial = `
input:
  doris_binlog:
    fenodes: fe1:8030,fe2:8030
    table_identifier: shop.orders
    username: reader
    password: "${DORIS_PASSWORD}"
    scan_mode: initial
    binlog_poll_interval: 5s
    checkpoint_cache: doris_cp
cache_resources:
  - label: doris_cp
    file:
      directory: /var/lib/rpconnect-doris/checkpoints
output:
  stdout: {}
`

const exampleLatest = `
input:
  doris_binlog:
    fenodes: fe1:8030
    table_identifier: shop.orders
    username: reader
    password: "${DORIS_PASSWORD}"
    scan_mode: latest
    binlog_increment_type: min_delta
    jdbc_url: jdbc:mysql://fe1:9030
    binlog_offset_table: ops.source_offsets
    binlog_consumer_id: orders-to-kafka
    checkpoint_cache: doris_cp
cache_resources:
  - label: doris_cp
    file:
      directory: /var/lib/rpconnect-doris/checkpoints
output:
  stdout: {}
`
