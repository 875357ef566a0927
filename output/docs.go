package output

const specDescription = `
Each batch is split by target table (` + "`table_identifier`" + `) and sent as one Stream Load per target
(` + "`PUT /api/{db}/{table}/_stream_load`" + ` on an FE, which redirects the body to a BE). The batch is acked
only when every load succeeded; otherwise it fails and Benthos delivers it again.

### Change events

Messages from ` + "`doris_binlog`" + ` (or any input that sets ` + "`operation`" + ` metadata) are applied as changes:
` + "`delete`" + ` becomes a row with ` + "`__DORIS_DELETE_SIGN__ = 1`" + `, ` + "`read`" + `, ` + "`insert`" + `, ` + "`update`" + ` and
` + "`update_after`" + ` become upserts, and ` + "`update_before`" + ` is dropped. Deletes need a UNIQUE KEY target; the key
model is read once per table from ` + "`/api/{db}/{table}/_schema`" + `.

Transaction markers (` + "`doris_binlog`" + `'s ` + "`include_transaction_markers`" + `, messages whose ` + "`operation`" + ` is
` + "`begin`" + ` or ` + "`commit`" + `) are dropped, always: a Stream Load commits per target table and batch, so a
source transaction's boundaries have nothing to bound here, and a marker has no row to load. With markers on,
a restart inside a transaction re-reads it from its first change, so the replayed batches can be cut
elsewhere than before and take other labels: UNIQUE KEY targets end up the same (the same upserts again),
DUPLICATE KEY targets may hold the re-read part of that transaction twice. Leave the markers off for a
pipeline whose only output is doris_load.

### Exactly once

A load is never applied twice when its label repeats: Doris answers "Label Already Exists", which
doris_load takes as success when the earlier load finished (and waits for it when it is still running).
Labels repeat on a replay when

- every message of the load carries ` + "`tso`" + `, ` + "`lsn`" + `, ` + "`operation`" + `, ` + "`database_schema`" + ` and ` + "`table`" + ` metadata (as
  ` + "`doris_binlog`" + ` sets them), so the label is derived from the target, the source tables, the first and last
  positions and the row count;
- the batches replayed after a restart are the same as before it: ` + "`doris_binlog`" + ` re-emits the same batches
  while its ` + "`batch_size`" + `, ` + "`batching`" + `, ` + "`binlog_merge_updates`" + ` and table selection are unchanged, and this
  output does no ` + "`batching`" + ` of its own: a ` + "`count`" + ` or ` + "`byte_size`" + ` counts from where the process started, so
  after a restart its batches end elsewhere, and a ` + "`period`" + ` depends on timing (flagged by lint);
- the replay comes within Doris's label retention (` + "`streaming_label_keep_max_second`" + ` on the FE).

Without positions, a random label is made per load. It is kept only while doris_load retries the
batch itself (` + "`retry_in_order`" + `); a batch that fails back to Benthos leaves no label behind, because
Benthos may never deliver it again (a ` + "`fallback`" + ` output) and a later batch with equal rows must not be
skipped as already loaded. Such rows may therefore load again when Benthos redelivers the batch or after a
restart, which is harmless for UNIQUE KEY targets (the same upsert) but duplicates rows in DUPLICATE KEY
targets. A load that got no answer (a lost connection, a deadline) is looked up by label before the
batch fails: if Doris has it, it counts as loaded.

A request that fails with a connection error or a 5xx answer, or runs out of its deadline, is retried on
the next FE with the same label. Each attempt of a load has a deadline covering the upload and the answer:
` + "`timeout`" + ` (or, when unset, ` + "`request_read_timeout`" + `) plus ` + "`request_connect_timeout`" + `; other requests get
` + "`request_connect_timeout`" + ` plus ` + "`request_read_timeout`" + `. A BE that stops reading the body or never answers
therefore fails the attempt instead of hanging the output. Any other failed Stream Load status fails the batch with Doris's message and the label;
"Publish Timeout" counts as success because the transaction is committed.

Change events must reach the output in commit order: keep ` + "`max_in_flight: 1`" + ` and, when the config has
pipeline processors, ` + "`pipeline.threads: 1`" + ` (several threads reorder batches). A failed batch of change
events is retried in place (` + "`retry_in_order`" + `) for the same reason. ` + "`sequence_column`" + ` makes order irrelevant.

With ` + "`two_phase_commit`" + `, all targets of a batch are pre-committed first and committed afterwards, so they
become visible together; a failure aborts what was pre-committed.

### Schema changes

Stream Load ignores the JSON keys a table lacks. So that no column's values are dropped that way, the
messages' ` + "`schema`" + ` metadata (a Common schema, as ` + "`doris_binlog`" + ` attaches it) is compared with each target's
columns, read once with SHOW CREATE TABLE; each schema is judged once per target by its fingerprint. A
change whose schema has a column the target lacks fails its batch with a permanent error naming the
target and the column, and nothing after it loads until the column exists; with ` + "`schema_evolution`" + ` the
column is added first. See ` + "`schema_evolution`" + `.
`

const exampleReplicate = `
input:
  doris_binlog:
    fenodes: 127.0.0.1:8030
    include: [ 'shop\..*' ]
    username: root
    scan_mode: initial
    checkpoint_cache: offsets

output:
  doris_load:
    fenodes: 127.0.0.1:8030
    username: root
    table_identifier: shop_replica.${! @table }
    sequence_column: _src_tso
    schema_evolution:
      enabled: true
    batching:
      count: 1000

cache_resources:
  - label: offsets
    file:
      directory: ./offsets
`

const exampleFiles = `
input:
  file:
    paths: [ ./updates/*.jsonl ]
    scanner:
      lines: {}

output:
  doris_load:
    fenodes: 127.0.0.1:8030
    username: root
    table_identifier: shop.orders
    cdc: "false"
    columns: id,status,updated_at
    partial_columns: true
    batching:
      count: 5000
      period: 1s
`
