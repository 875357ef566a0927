package input

// The spec's description and examples: the input's user documentation
// beyond the fields.

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
- ` + "`doris_schema`" + ` (immutable): the Doris description of the table that ` + "`schema`" + ` cannot carry, which ` + "`doris_load`" + `'s ` + "`create_tables`" + ` recreates the table from: ` + "`keys_type`" + `, ` + "`key_columns`" + ` (as declared, sort keys included), the table ` + "`comment`" + `, and ` + "`columns`" + ` in body order as ` + "`{name, type, nullable, comment}`" + `, types exactly as SHOW CREATE TABLE prints them

Binlog rows also carry:

- ` + "`tso`" + ` (int64): the commit TSO. It exceeds 2^53, so JavaScript consumers should read it as a string or use ` + "`transaction_id`" + `.
- ` + "`lsn`" + ` (int64): the record's position inside its transaction
- ` + "`commit_ts_ms`" + ` (int64): the commit time in epoch milliseconds (the TSO's physical part)
- ` + "`source_ts_ms`" + ` (int64): equal to ` + "`commit_ts_ms`" + `, since a Doris commit has one time
- ` + "`transaction_id`" + ` (string): the TSO in decimal; one TSO is one transaction
- ` + "`doris_phase`" + ` (string, ` + "`catchup`" + `): only on the rows of a table that joined while the input ran, read on its own before it joins the shared windows. They can be older than rows of other tables already delivered; ` + "`kafka_franz`" + ` with ` + "`exactly_once`" + ` writes them at least once, as it does snapshot rows
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

// transactionMarkersDescription documents include_transaction_markers,
// the name Redpanda Connect's postgres_cdc gives the same option.
const transactionMarkersDescription = "Put a marker message before and after each Doris transaction's binlog changes, as `postgres_cdc` does with the same option: `operation: begin` before the first change of a commit TSO and `operation: commit` after its last. " +
	"A Doris transaction is one commit TSO: a Stream Load, an `INSERT`, or an explicit `BEGIN; INSERT ...; INSERT ...; COMMIT` that wrote several tables of one database; its changes arrive as one run, its tables in name order. " +
	"Markers carry `tso`, `transaction_id`, `commit_ts_ms` and `source_ts_ms` as change messages do (and `doris_phase` on a table's catch-up), but no `table` or `database_schema`, since a transaction may span tables. " +
	"Where `postgres_cdc` leaves the body empty, ours is JSON (an empty body would be a Kafka tombstone): a begin is `{\"transaction_id\":\"455...\",\"tso\":455...,\"commit_ts_ms\":173...}`; " +
	"a commit adds `\"event_count\":3,\"tables\":[{\"table\":\"shop.orders\",\"event_count\":2},{\"table\":\"shop.lines\",\"event_count\":1}]`, counting the messages it delivered (a merged update counts once). The begin cannot carry the count: rows are streamed as they are read. " +
	"Guarantee: the checkpoint only advances at whole transactions, so after a crash or restart an unfinished transaction is read again from its first change and its `begin` is sent again; downstream, the last `begin` of a TSO is followed by all of that transaction's changes and its `commit`, and no transaction is left with a begin and no commit once the input runs on. " +
	"A consumer that applies transactions atomically discards what it holds of a TSO when a `begin` of that TSO comes again. The cost: a crash re-sends up to the open transaction's changes besides the unacknowledged ones. " +
	"Snapshot rows and a catching-up table's own reads are no part of the chain's transactions and may come between a transaction's batches; a transaction that changed a table still catching up is split: that table's part comes with its own markers. " +
	"`doris_load` drops markers; `kafka_franz` drops them unless its `transaction_markers` is set. Only valid with a binlog phase (initial, latest, from-timestamp)."
