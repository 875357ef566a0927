package input

import (
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Config field names: the Doris connector option minus its `source.`/`doris.`
// prefix, with `.` and `-` turned into `_`.
const (
	fieldTableIdentifier           = "table_identifier"
	fieldTables                    = "tables"
	fieldInclude                   = "include"
	fieldExclude                   = "exclude"
	fieldDiscoveryInterval         = "table_discovery_interval"
	fieldJDBCURL                   = "jdbc_url"
	fieldAllowPlaintextEndpoints   = "allow_plaintext_endpoints"
	fieldScanMode                  = "scan_mode"
	fieldScanTimestamp             = "scan_timestamp"
	fieldSnapshotConsistency       = "snapshot_consistency"
	fieldIncrementType             = "binlog_increment_type"
	fieldPollInterval              = "binlog_poll_interval"
	fieldVisibleWaitTimeout        = "binlog_visible_wait_timeout"
	fieldSkipIdleTables            = "skip_idle_tables"
	fieldOffsetTable               = "binlog_offset_table"
	fieldConsumerID                = "binlog_consumer_id"
	fieldSignalTable               = "signal_table"
	fieldOnExpired                 = "binlog_on_expired"
	fieldMergeUpdates              = "binlog_merge_updates"
	fieldIgnoreUpdateBefore        = "binlog_ignore_update_before"
	fieldTransactionMarkers        = "include_transaction_markers"
	fieldBinlogFilter              = "binlog_filter"
	fieldUseFlightSQL              = "use_flight_sql"
	fieldFlightSQLPort             = "flight_sql_port"
	fieldReadField                 = "read_field"
	fieldFilterQuery               = "filter_query"
	fieldRequestTabletSize         = "request_tablet_size"
	fieldSnapshotQueryRows         = "snapshot_query_rows"
	fieldBatchSize                 = "batch_size"
	fieldMaxParallelSnapshotSplits = "max_parallel_snapshot_splits"
	fieldMaxParallelSnapshotTables = "max_parallel_snapshot_tables"
	fieldMaxFlightSessions         = "max_flight_sessions"
	fieldQueryTimeout              = "request_query_timeout"
	fieldExecMemLimit              = "exec_mem_limit"
	fieldRetries                   = "request_retries"
	fieldConnectTimeout            = "request_connect_timeout"
	fieldReadTimeout               = "request_read_timeout"
	fieldDebugMetadata             = "debug_metadata"
	fieldCheckpointCache           = "checkpoint_cache"
	fieldCheckpointKey             = "checkpoint_cache_key"
	fieldCheckpointLimit           = "checkpoint_limit"
	fieldCheckpointAcceptCluster   = "checkpoint_accept_cluster_id"
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
			Description("MySQL-protocol address of a Doris FE, `jdbc:mysql://host:port[/db][?k=v]`. Only used to publish to `binlog_offset_table`. Credentials go in `username` and `password`: user info in the URL (`user:pw@`) is refused, and an `@` in a parameter value must be written `%40`. The field is a secret because parameters may carry one; messages show it with user info and every parameter value replaced by `xxxxx`.").
			Example("jdbc:mysql://127.0.0.1:9030").
			Secret().
			Optional().
			LintRule(jdbcLint),
		doris.TLSField("TLS for every connection to Doris: FE HTTP, Arrow Flight SQL and the MySQL protocol. With TLS enabled every Arrow Flight connection uses TLS, the FE's and each result BE's alike: an endpoint that Doris advertises as `grpc+tcp://` (a `public_host` or proxy setup that names the wrong scheme) is dialled with TLS too, see `allow_plaintext_endpoints`."),
		service.NewBoolField(fieldAllowPlaintextEndpoints).
			Description("Only with `tls.enabled`: dial Arrow Flight endpoints that Doris advertises as `grpc+tcp://` in plaintext, as advertised, instead of with TLS. The FE's bearer token and the rows then travel unencrypted to those endpoints, so a warning is logged at start. Leave it false unless the result BEs really serve Arrow Flight without TLS while the FE uses it; a fetch from a plaintext BE dialled with TLS fails with an error that names the endpoint and this option.").
			Advanced().
			Default(false),
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
			Description("Regular expressions (Go RE2 syntax) matched against each table's whole `db.table` name, as if anchored with `^...$`: every table that matches one of them, and no `exclude` pattern, is read. Tables are listed from `information_schema.schemata` and `information_schema.tables` as the user sees them, 1,000 names per statement until the list is complete (so a database of any size is listed in full), and listed again every `table_discovery_interval`; a listing that fails changes nothing until the next one. A matched table without row binlog, or that is not a DUPLICATE KEY or merge-on-write UNIQUE KEY table, is skipped with one warning and checked again at each discovery.").
			Example([]string{`shop\..*`}).
			Example([]string{`shop\.orders`, `crm\.(customers|contacts)`}).
			Optional(),
		service.NewStringListField(fieldExclude).
			Description("Regular expressions removing tables from what `include` matched, matched the same way. Only valid with `include`.").
			Example([]string{`shop\.tmp_.*`}).
			Optional(),
		service.NewDurationField(fieldDiscoveryInterval).
			Description("How often the databases and tables are listed again while the binlog is followed. A new table that the selection names or matches joins the stream: in `initial` mode it gets its own snapshot and then its changes from the moment it was found; in `latest` and `from-timestamp` it streams from the moment it was found. A dropped table (one a complete listing no longer shows; a listing that fails or is cut short drops nothing) leaves the stream and the checkpoint with a warning; one dropped and created again is a new table. `0s` lists the tables only at start.").
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
		service.NewStringField(fieldSnapshotConsistency).
			Description("How exactly an `initial` snapshot meets the binlog that follows it. " +
				"`exact`: every split of a table is read `FOR VERSION AS OF` one commit TSO, chosen with the table's binlog start, and the binlog begins right after it, so every change is delivered exactly once, in the snapshot or as an event (across restarts too: the TSO is in the checkpoint). " +
				"Doris (5.0 and later, integrated storage-compute mode) can do that for a table with row binlog that is DUPLICATE KEY, or merge-on-write UNIQUE KEY created with `\"binlog.need_historical_value\" = \"true\"`; a merge-on-write table's snapshot must then finish within its `binlog.ttl_seconds`, or the input stops. " +
				"With `exact` the connection test and the start refuse any other table, naming the property to set. " +
				"`best` reads each table as exactly as it can and says once, in a warning, what a table gets instead: a merge-on-write table without historical values keeps out of its snapshot the rows written after the TSO (by their `__DORIS_COMMIT_TSO_COL__`), so nothing comes twice but a key changed during the snapshot arrives only as its change (an update or delete of a row the consumer never got); a table Doris cannot read as of a TSO (an FE without `__DORIS_COMMIT_TSO_COL__`) is read at the current version, where a change committed during its snapshot can come twice. " +
				"`at_least_once` reads every table at the current version without asking Doris (an older FE), as earlier releases did. " +
				"Only used with `scan_mode: initial`.").
			Example("exact").Example("at_least_once").
			Default(consistencyBest).
			LintRule(enumLint(fieldSnapshotConsistency, consistencyValues...)),
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
		service.NewBoolField(fieldSkipIdleTables).
			Description("Leave out of a binlog window every table that provably had no commit in it, instead of running its `@incr` query. Once per database per poll the input reads `COMMITTED_VERSION` of every partition from `information_schema.partitions` (one Flight query) and the Doris time again; a table whose partitions are the same, at the same committed versions, as in such a snapshot taken before the window started had no commit in the window, so its query would return no rows. Doris moves a partition's committed version in the same locked step that gives a commit its TSO, and a commit whose publish is still pending has already moved it, so no change is ever skipped (docs/idle-tables.md). A skipped table's window counts as read: the checkpoint moves on and the `binlog.ttl_seconds` check runs as before a read. A poll then costs two `GET /api/tso` and one query per database instead of one `@incr` query (and one Flight session) per table; a changed table is read in the window of its change and at most once more. Where the versions cannot be used the tables are read as with `false`, and the log says so once: the query fails (tried again each poll), the columns are missing (a Doris before apache/doris#51025), or cloud mode answers `-1`. Skipped table windows are counted in `doris_binlog_idle_windows_skipped_total`. Turn it off only to compare.").
			Default(true).Advanced(),
		service.NewDurationField(fieldVisibleWaitTimeout).
			Description("How long a window Doris is not ready to serve yet (errors 5100/5101) is retried before the input fails. `0s` disables retries; negative values are rejected.").
			Default("5m").
			LintRule(minDurationLint(fieldVisibleWaitTimeout, 0, "must not be negative")),
		service.NewStringField(fieldOffsetTable).
			Description("Optional Doris table, `db.table`, to which the end of each finished binlog window is upserted for monitoring (`consumer_id`, `offset_timestamp`, `update_time`). `offset_timestamp` is `yyyy-MM-dd HH:mm:ss` on the wall clock of the Doris FE's `time_zone`, the zone of `scan_timestamp`, so it can be copied into `scan_timestamp` to resume by hand while that point is retained (in a repeated hour it names the hour's first pass, which re-reads rather than skips). It is never read back. Requires `binlog_consumer_id` and `jdbc_url`.").
			Example("ops.source_offsets").
			Optional().Advanced().
			LintRule(dbTableLint(fieldOffsetTable)),
		service.NewStringField(fieldSignalTable).
			Description("Optional Doris table, `db.table`, of signals that re-snapshot tables while the stream runs, as Debezium's signal table does. " +
				"The input reads the table's row binlog in the same windows as the data, in the same `(TSO, table, LSN, OP)` order, but never emits its rows; each row inserted is one signal. " +
				"The table needs row binlog and three string columns: `id` (unique, named on the rows and in the logs a signal causes), `type` and `data` (JSON), for example:\n\n" +
				"```sql\nCREATE TABLE ops.cdc_signals (`id` VARCHAR(64) NOT NULL, `type` VARCHAR(32), `data` STRING)\nUNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1\n" +
				"PROPERTIES (\"enable_unique_key_merge_on_write\" = \"true\", \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\");\n```\n\n" +
				"`type: execute-snapshot` with `data` `{\"data-collections\": [\"shop.orders\"], \"additional-conditions\": [{\"data-collection\": \"shop.orders\", \"filter\": \"id > 100\"}]}` " +
				"(the conditions are optional) makes each named table leave the shared windows at the end of the window the signal was committed in, take a new snapshot (its rows are `operation: read` with the metadata `signal_id`), " +
				"catch up on its own binlog from where it left and rejoin, while the other tables stream on; every change of the table is delivered once as a change, before or after the snapshot. " +
				"`type: stop-snapshot` with `{\"data-collections\": [\"shop.orders\"]}` (or no tables: all) cancels such a snapshot: the rows delivered stay delivered, and the table catches up from where it left and rejoins, losing no change. " +
				"A signal survives a restart at any point: it is kept in the checkpoint from the batch that delivered its position on. " +
				"A row of an unknown type, a malformed row, a table the input does not follow or one that is taking a snapshot already is skipped with a warning naming the signal's id. " +
				"Updates and deletes of the signal table are ignored, so old signals may be deleted. Valid in incremental scan modes only; the table is never followed as data. See docs/operating.md, Signals.").
			Example("ops.cdc_signals").
			Optional().Advanced().
			LintRule(dbTableLint(fieldSignalTable)),
		service.NewStringField(fieldConsumerID).
			Description("The `consumer_id` row written to `binlog_offset_table`. Set together with `binlog_offset_table`. When set it is also the default `checkpoint_cache_key`.").
			Optional().Advanced(),
		service.NewStringField(fieldOnExpired).
			Description("What to do when a binlog window starts before the oldest change Doris still retains (`binlog.ttl_seconds`): `continue` logs an error naming the lost period, increments `doris_binlog_expired_gaps_total` and goes on from the first retained change; `fail` stops the input without moving the checkpoint. `min_delta` always fails, because Doris refuses expired reads. The check runs before every attempt to read a window, retries included, so a window stuck on a repeating error ends here once its changes expire; it fails closed: when the TTL or Doris's current time cannot be read, the window is not read and the check is retried.").
			Default("continue").
			LintRule(enumLint(fieldOnExpired, "continue", "fail")),
		service.NewBoolField(fieldMergeUpdates).
			Description("Turn each `update_before`/`update_after` pair into one message with `operation: update`: the body is the after-image and the before-image is the structured metadata `before` (an object, read it with `@before`). The two halves share TSO and LSN and always arrive in the same window, so nothing waits; the merged message's position is the `update_after`'s, so a checkpoint never points between the halves. A batch that `batch_size` would end on an `update_before` takes its `update_after` as well (one row more, one message), so a batch never ends between the halves and a restart cuts the batches it cut before (labels such as `doris_load`'s depend on that). Changing this field changes where batches end. A half pair (with `binlog_filter`, see there) is delivered unmerged with its own operation and counted in `doris_binlog_unpaired_updates_total`; a warning names it, at most once a minute per table. Conflicts with `binlog_ignore_update_before`.").
			Default(false),
		service.NewBoolField(fieldTransactionMarkers).
			Description(transactionMarkersDescription).
			Example(true).
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
				"but never more than `request_tablet_size` tablets. Larger values mean fewer, longer splits. " +
				"Each split is one Flight SQL query unless `snapshot_query_rows` merges a small table's splits; a split is also the unit of progress, " +
				"so a restart reads an unfinished split again from its start.").
			Example(1).Example(16).
			Default(1).Advanced().
			LintRule(minIntLint(fieldRequestTabletSize)),
		service.NewIntField(fieldSnapshotQueryRows).
			Description("A table with at most this many rows is snapshotted in one query per backend instead of one per split. " +
				"Each split is one Flight SQL query, and with small tablets the queries cost more than their rows: 100 tables of 8 buckets " +
				"are 800 queries. Before a table's snapshot the input counts its rows up to this limit (`SELECT COUNT(*) FROM (SELECT 1 FROM <table> LIMIT <n>)`, " +
				"one more short query), so the count is exact at that moment, unlike Doris's tablet statistics, which lag a load by minutes. " +
				"A restart counts again, so an unchanged table is read in the same queries and gives the same batches. " +
				"Larger tables keep one query per split. A query is the unit of progress: a restart reads an unfinished one again from its start, " +
				"at most this many rows for a small table. A failed count is logged and the table is read one split per query. 0 turns the count off.").
			Example(0).Example(100000).Example(1000000).
			Default(100000).Advanced().
			LintRule(`root = if this < 0 { [ "snapshot_query_rows must be 0 or more; got %v".format(this) ] }`),
		service.NewIntField(fieldBatchSize).
			Description("Maximum number of rows per emitted batch. With `binlog_merge_updates`, a batch that would end on an `update_before` also takes its `update_after`: the two become one message, so a batch still holds at most this many messages. After a restart the input cuts the batches it cut before while this, `batching` and `binlog_merge_updates` are unchanged.").
			Default(4064).
			LintRule(minIntLint(fieldBatchSize)),
		service.NewIntField(fieldMaxParallelSnapshotSplits).
			Description("How many snapshot splits of one table are read at the same time, each on its own Flight SQL session.").
			Default(2).Advanced().
			LintRule(minIntLint(fieldMaxParallelSnapshotSplits)),
		service.NewIntField(fieldMaxParallelSnapshotTables).
			Description("How many tables are snapshotted at the same time. At most `max_parallel_snapshot_tables` × `max_parallel_snapshot_splits` snapshot sessions are open at once, each holding at most one chunk of `batch_size` rows. " +
				"The default is 4 rather than Redpanda Connect's usual 1: a database of small tables read one table at a time spends much of its time between tables. Set 1 to snapshot one table at a time, for example to keep the load on Doris lower.").
			Default(4).Advanced().
			LintRule(minIntLint(fieldMaxParallelSnapshotTables)),
		service.NewIntField(fieldMaxFlightSessions).
			Description(maxFlightSessionsDoc).
			Example(8).Example(16).Example(40).
			Default(defaultMaxFlightSessions).Advanced().
			LintRule(maxFlightSessionsLint),
	}
}

func requestFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewDurationField(fieldQueryTimeout).
			Description("Time limit of each snapshot and binlog query, counted while the input waits on Doris (planning, executing, receiving rows). " +
				"The time the reader holds a query while handing its rows on to a slow output does not count, so a slow output never times a query out. " +
				"A binlog window that runs out of it is read again as two consecutive halves, split down to one second; a one-second window that still runs out stops the input with an error naming this field. " +
				"Doris's own `query_timeout` (a Doris session variable) counts the whole time a query is open: when it ends a query the reader held at least as long as it waited on Doris, the output was the slow side, and the window is read again whole, as for memory pressure (see `request_retries`).").
			Default("6h").Advanced().
			LintRule(minDurationLint(fieldQueryTimeout, 1, "must be positive")),
		service.NewStringField(fieldExecMemLimit).
			Description("Doris memory limit per query (the session's `exec_mem_limit`): plain bytes or a number with the unit `b`, `k`, `kb`, `m`, `mb`, `g` or `gb` (case-insensitive, powers of 1024). " +
				"A binlog window whose query Doris refuses for going over this limit (`MEM_LIMIT_EXCEEDED` with `memory tracker limit exceeded`) is read again at once as two consecutive halves, split down to one second; a one-second window that is still refused stops the input with an error naming this field. " +
				"A refusal for memory pressure on the backend (`Process memory not enough`, `Allocator sys memory check failed`, a workload group's limit) passes once other work ends, so the same window is first read again, as `request_retries` says.").
			Default("8192mb").Advanced().
			LintRule(`root = if !this.string().re_match("^(?i)0*[1-9][0-9]*\\s*(b|k|kb|m|mb|g|gb)?$") { [ "exec_mem_limit must be bytes or a size such as 8192mb; got %q".format(this.string()) ] }`),
		service.NewIntField(fieldRetries).
			Description("Attempts per FE REST request, and per snapshot split. " +
				"Also how many times in a row a binlog window (or a piece of one) is read, with a 1–30 s backoff between attempts, when Doris refuses it for a reason that passes: " +
				"memory pressure on the backend (`Process memory not enough`, `Allocator sys memory check failed`, a workload group's limit), or a `MEM_LIMIT_EXCEEDED` that does not say whose limit. " +
				"Each attempt is logged with its cause. After that many the window is read as two consecutive halves: Doris's memory GC cancels the largest queries first, and a half needs less. A one-second piece refused that many times stops the input. " +
				"Doris's `query_timeout` used up while a slow output held the query is not counted: that window is read again, with the same backoff, for as long as it happens.").
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
			Description("The key under which the position of every selected table is stored (plus `<key>.bak`). Must be unique per pipeline sharing a cache, and a valid file name for the `file` cache. Defaults to `binlog_consumer_id` (characters outside `[A-Za-z0-9._-]` replaced by `_`) when set. Else, for a single table (`table_identifier` or a one-entry `tables`), `doris_binlog_<db>.<table>`, where each name keeps `a-z`, `0-9` and `_` and escapes every other byte with `-`: `-` is `--`, an upper-case letter is `-` and the letter in lower case, any other byte is `-` and three octal digits (`shop.Orders` is `doris_binlog_shop.-orders`, `my-db.订单` is `doris_binlog_my--db.-350-256-242-345-215-225`). Else, or when that key would be longer than 200 bytes, `doris_binlog_sel_` and the hex SHA-256 of the selection (the sorted table list, or the patterns), so that changing the selection changes the key. No two selections share a default key, and the keys hold only `[a-z0-9._-]`, safe on case-insensitive file systems. A checkpoint stored under the default key of earlier builds (`doris_binlog_<db>_<table>` with `_` for other characters, or `doris_binlog_` and 12 hex digits) is carried over to the new key on the first start, with an info log; a configured key is used as is.").
			Optional().Advanced().
			LintRule(`root = if this.string() == "" { [ "checkpoint_cache_key must not be empty" ] }`),
		service.NewStringField(fieldCheckpointAcceptCluster).
			Description("The checkpoint records the Doris cluster it was taken on (the `ClusterId` of `SHOW FRONTENDS`, which a cluster draws once when its first FE starts), because a TSO means nothing on another cluster. " +
				"At start the input reads the id of the cluster `fenodes` reaches; when it differs from the checkpoint's, the input stops before reading anything, naming both ids. " +
				"Set this field to the checkpoint's id to resume it on this cluster anyway (after a failover to a replica, or a restore of the FE metadata that drew a new id): the checkpoint then records this cluster's id, so the setting has no further effect and can be removed. " +
				"A checkpoint written before the id was recorded is resumed and gets the id on its next save.").
			Example("1846299834").
			Optional().Advanced().
			LintRule(`root = if this.string().re_match("^[0-9]+$") == false { [ "checkpoint_accept_cluster_id must be a Doris cluster id, a positive integer as SHOW FRONTENDS prints it" ] }`),
		service.NewIntField(fieldCheckpointLimit).
			Description("Maximum number of messages delivered but not yet acknowledged. Reading pauses at this limit.").
			Default(1024).Advanced().
			LintRule(minIntLint(fieldCheckpointLimit)),
	}
}
