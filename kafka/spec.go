// Package kafka holds the kafka_franz output: Benthos messages written to
// Kafka or Redpanda with franz-go, optionally exactly once for doris_binlog
// change streams. Only cmd/rpconnect-doris registers it, so that input/ and
// output/ stay importable into a Redpanda Connect build, which has its own
// kafka_franz.
package kafka

import (
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// Name is the component name, Redpanda Connect's, whose field names and
// meaning are kept for the subset supported here.
const Name = "kafka_franz"

// Config field names.
const (
	fieldSeedBrokers     = "seed_brokers"
	fieldTopic           = "topic"
	fieldKey             = "key"
	fieldPartitioner     = "partitioner"
	fieldPartition       = "partition"
	fieldMetadata        = "metadata"
	fieldTimestampMs     = "timestamp_ms"
	fieldClientID        = "client_id"
	fieldMaxInFlight     = "max_in_flight"
	fieldBatching        = "batching"
	fieldMaxMessageBytes = "max_message_bytes"
	fieldCompression     = "compression"
	fieldTimeout         = "timeout"
	fieldIdempotent      = "idempotent_write"
	fieldAutoCreate      = "allow_auto_topic_creation"
	fieldTLS             = "tls"
	fieldSASL            = "sasl"
	fieldSASLMechanism   = "mechanism"
	fieldSASLUsername    = "username"
	fieldSASLPassword    = "password"
	fieldExactlyOnce     = "exactly_once"
	fieldTransactionalID = "transactional_id"
)

// Config field names of the tombstones and the exactly_once tail search.
const (
	fieldDeleteTombstones = "delete_tombstones"
	fieldMaxTailScan      = "max_tail_scan_records"
	// fieldTransactionMarkers: write doris_binlog's transaction markers.
	fieldTransactionMarkers = "transaction_markers"
)

// Partitioner and compression values, Redpanda Connect's.
const (
	partMurmur2     = "murmur2_hash"
	partRoundRobin  = "round_robin"
	partLeastBackup = "least_backup"
	partManual      = "manual"
)

var (
	partitioners  = []string{partMurmur2, partRoundRobin, partLeastBackup, partManual}
	compressions  = []string{"none", "gzip", "snappy", "lz4", "zstd"}
	saslMechanism = []string{"none", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}
)

// unsupportedFields are fields of Redpanda Connect's kafka_franz (and its
// redpanda output) that this one refuses, so that a config copied from
// there fails at lint instead of silently losing a setting.
var unsupportedFields = []string{
	"rack_id", "broker_write_max_bytes", "metadata_max_age", "request_timeout_overhead",
	"conn_idle_timeout", "timestamp", "tcp", "uniform_bytes_options", "topic_partitions_fields",
	"linger", "inject_tracing_map", "max_buffered_records", "on_schema_drift",
}

// Spec describes the kafka_franz output.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Beta().
		Categories("Services").
		Summary("Writes messages to Kafka or Redpanda with franz-go; with `exactly_once`, each change of a `doris_binlog` stream lands once even across restarts and replays.").
		Description(specDescription).
		Fields(recordFields()...).
		Fields(producerFields()...).
		Fields(securityFields()...).
		Fields(exactlyOnceFields()...).
		LintRule(specLintRule()).
		Example("Doris changes into one topic per table",
			"Writes every change of the `shop` tables to `doris.shop.<table>`, keyed by the row's key columns, exactly once. See `config/database_to_kafka.yaml` for the full pipeline.",
			exampleCDC)
}

const specDescription = `
Field names and meaning follow Redpanda Connect's ` + "`kafka_franz`" + ` output for the subset listed here. The other fields of Redpanda Connect's output are lint errors that say so, rather than settings silently ignored.

### Records

The record value is the message body; an empty body is written as a null value (a tombstone on a compacted topic). The key, topic, partition and timestamp come from the fields below, the headers from ` + "`metadata`" + `. With ` + "`delete_tombstones: true`" + ` every message whose ` + "`operation`" + ` is ` + "`delete`" + ` is followed by a tombstone of its key.

### Delivery

Without ` + "`exactly_once`" + ` delivery is at least once: ` + "`idempotent_write`" + ` removes the client's own retry duplicates, but a batch replayed after a nack or a restart is written again.

With ` + "`exactly_once: true`" + ` every batch is written in one Kafka transaction under ` + "`transactional_id`" + `, and starting fences any older producer with the same id. Every record carries the header ` + "`transactional_id`" + ` (its writer), and those with a ` + "`tso`" + ` the headers ` + "`tso`, `database_schema`, `table`, `lsn` and `operation`" + `, whatever ` + "`metadata`" + ` selects. Its records without a position of their own (snapshot rows, catch-up rows) carry the header ` + "`doris_tail`" + `: the position the partition stood at when they were written. Before the first write to a partition the output finds that partition's last committed record (read_committed) of its own ` + "`transactional_id`" + `, reading back from the end and skipping the records of other writers, takes the position it has or holds in ` + "`doris_tail`" + `, and drops every message whose position ` + "`(tso, db.table, lsn, operation)`" + ` is not after it; ` + "`db.table`" + ` is the table's name as ` + "`doris_binlog`" + ` orders it, each part backtick-quoted when it holds a dot, a backtick or white space. A partition with no record of this writer drops nothing. The search first waits (within ` + "`timeout`" + `) for the transactions other producers have open in the partition to end, since this writer's later records are not readable before: past that the write fails naming the partition and is tried again. It reads below the end offset it waited for (transactions others open later do not hold it up), at most ` + "`max_tail_scan_records`" + ` offsets back, each fetch within ` + "`timeout`" + `; reaching that bound without a record of this writer, or finding one whose position headers are broken, stops the output with an error naming the partition (and the offset), never writing the replay again unfiltered. Several instances may share a topic, each with its own ` + "`transactional_id`" + ` and a disjoint table selection. This needs one writer per ` + "`transactional_id`" + `, batches in order (` + "`max_in_flight: 1`" + `, ` + "`pipeline.threads: 1`" + `), and the partition decided here (the partitioner runs in the output, on the topic's partition count). Messages without a ` + "`tso`" + ` (snapshot rows) carry no position and stay at least once: a restart mid-snapshot may write snapshot rows again. So do the catch-up rows of a table that joined while ` + "`doris_binlog`" + ` ran (metadata ` + "`doris_phase: catchup`" + `): they are older than rows of other tables the partition may already hold, so their position cannot be compared with its tail; they are always written, and a restart during a table's catch-up may write them again. Consumers must read with ` + "`isolation.level=read_committed`" + `.

With ` + "`delete_tombstones`" + ` a delete and its tombstone are written in one transaction and count as one position: a replay drops both or neither, and a partition whose last record is either is understood.

A batch is never handed back for a later replay while later batches go on: Benthos would write the batches behind it first, and the tail check would then drop it as already written. A failed write (a metadata or offset request, a tail read, a broker restart, a timeout) is tried again in place, with a wait doubling from 200ms to 10s, each attempt logged with its cause, until it succeeds or the stream stops; a failed transaction is aborted first, and the next attempt starts a new producer and reads the tails again. An error that trying again cannot fix stops the output, logged once at error level with its cause: a message whose ` + "`topic`, `key`, `partition` or `timestamp_ms`" + ` cannot be interpolated, a record larger than the brokers accept, a refused authorization, a fenced producer, a changed partition count. From then on every batch fails with that error and the output does not reconnect, so nothing after the failed batch is written; the input keeps its checkpoint before it, and a restart writes it again.

A tail is read below the partition's last stable offset, which another producer's open transaction holds back: the read first waits, up to ` + "`timeout`" + ` and with a warning naming the partition, until the transactions open on that partition have ended; past ` + "`timeout`" + ` the write is tried again as above.

### Fencing

Starting fences the older producer with the same ` + "`transactional_id`" + `. The fenced instance stops with ` + "`another instance took over transactional_id \"<id>\"`" + ` and does not reconnect (a new producer would fence the newer instance in turn); restart it only once the other instance is gone.

### Adding partitions

The output hashes keys onto a topic's partition count as it was when the output started, and checks the count again before every write. When partitions were added, it stops before writing the batch, naming the topic and both counts: a key that hashes to another partition now would leave its earlier changes in the old partition, where the tail check does not look (a replay would write them again), and a consumer could read the key's changes out of order. To add partitions: add them (or let the output stop at its next write), let consumers read what the old partitions hold, then restart the pipeline, which writes onto the new count from the stored checkpoint; every batch before the stop was committed and acknowledged, so nothing is written twice. A change is only written twice if the process is killed after partitions were added and before its next write (up to ` + "`checkpoint_limit`" + ` changes, the ones written but not yet acknowledged). To keep each key's order across the change, write into a new topic with the new count instead. ` + "`partitioner: manual`" + ` moves nothing and is not checked.

### Metrics

Besides Benthos's ` + "`output_sent`" + ` (records written), ` + "`output_error`" + ` and ` + "`output_latency_ns`" + ` (write latency), ` + "`exactly_once`" + ` counts ` + "`kafka_franz_transactions_committed`" + `, ` + "`kafka_franz_transactions_aborted`" + ` and ` + "`kafka_franz_replayed_dropped`" + ` (messages dropped as already written) and ` + "`kafka_franz_write_retries`" + ` (in-place attempts after a failed one).
`

const exampleCDC = `
input:
  doris_binlog:
    fenodes: doris-fe:8030
    include: ['shop\..*']
    username: root
    password: ""
    checkpoint_cache: cp
output:
  kafka_franz:
    seed_brokers: [ localhost:9092 ]
    topic: 'doris.${! @database_schema }.${! @table }'
    key: '${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
    metadata:
      include_patterns: [ '^(operation|tso|lsn|database_schema|table|commit_ts_ms)$' ]
    max_in_flight: 1
    exactly_once: true
    transactional_id: doris-shop-to-kafka
`

func enumLint(field string, values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = `"` + v + `"`
	}
	return `root = if ![` + strings.Join(q, ", ") + `].contains(this.string()) { [ "` + field + ` must be one of ` + strings.Join(values, ", ") + `; got %q".format(this.string()) ] }`
}

func recordFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringListField(fieldSeedBrokers).
			Description("Kafka or Redpanda brokers to connect to first; the rest of the cluster is discovered. Each item may hold several addresses separated by commas.").
			Example([]string{"localhost:9092"}).
			Example([]string{"foo:9092", "bar:9092"}),
		service.NewInterpolatedStringField(fieldTopic).
			Description("The topic of each message, interpolated, so one stream can write each table to its own topic.").
			Example("doris.${! @database_schema }.${! @table }").
			Example("orders"),
		service.NewInterpolatedStringField(fieldKey).
			Description("The record key, interpolated. With the default partitioner every record of one key goes to one partition, in order. Unset: no key.").
			Example(`${! @key_columns.map_each(c -> this.get(c).string()).join(",") }`).
			Example("${! this.id }").
			Optional(),
		service.NewStringField(fieldPartitioner).
			Description("How a record's partition is chosen: `murmur2_hash` (Kafka's default: murmur2 of the key, records without a key spread), `round_robin`, `least_backup` (the partition with the fewest buffered records) or `manual` (the `partition` field). Unset means `murmur2_hash`.").
			LintRule(enumLint(fieldPartitioner, partitioners)).
			Example(partManual).
			Optional(),
		service.NewInterpolatedStringField(fieldPartition).
			Description("With `partitioner: manual` only: the partition, an interpolated integer.").
			Example(`${! meta("partition") }`).
			Optional(),
		service.NewMetadataFilterField(fieldMetadata).
			Description("The metadata sent as record headers. Nothing by default. Structured values (`schema`, `key_columns`) are sent as JSON.").
			Optional(),
		service.NewInterpolatedStringField(fieldTimestampMs).
			Description("The record timestamp in milliseconds since the epoch, interpolated. Unset: the time of writing.").
			Example("${! @commit_ts_ms }").
			Example("${! timestamp_unix_milli() }").
			Optional(),
		service.NewStringField(fieldClientID).
			Description("The client id sent to the brokers.").
			Default("benthos"),
		service.NewBoolField(fieldDeleteTombstones).
			Description("After each message whose `operation` metadata is `delete`, also write a tombstone: a record with the same key, partition and headers and a null value, so that a compacted topic forgets the row. The delete itself keeps its body (the deleted row). Only deletes get one: `update_before`, `update_after` and merged `update` messages do not, since a Doris update keeps the row's key. With `exactly_once` the tombstone is in its delete's transaction and shares its position. Needs `key`.").
			Example(true).
			Default(false),
		service.NewBoolField(fieldTransactionMarkers).
			Description("Write the transaction markers of `doris_binlog`'s `include_transaction_markers` (messages whose `operation` is `begin` or `commit`, with `tso` and `transaction_id` but no `table`, `database_schema` or `key_columns`) as records like any other message, to the topic, key and partition their interpolations give. " +
				"Interpolations that read `@table` or `@key_columns` must allow for them: give markers their own route, for example a `switch` processor case with `check: '[\"begin\", \"commit\"].contains(@operation)'` whose mapping sets `meta database_schema = \"shop\"`, `meta table = \"transactions\"` and `meta key_columns = []`, so that `topic: 'doris.${! @database_schema }.${! @table }'` sends them to one topic with an empty key (one partition, in order). " +
				"When false (the default) markers are dropped and acknowledged, and only the changes are written. " +
				"With `exactly_once`, a marker takes its place in the tail check by its TSO: a begin before every change of that TSO, a commit after them; so a transaction the input sends again from its begin after a restart leaves one begin, its changes and one commit in each partition, however many times it was sent. Markers of a table's catch-up read are written at least once, as its rows are.").
			Example(true).
			Default(false),
	}
}

func producerFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewOutputMaxInFlightField().Default(256).
			Description("The maximum number of batches written at once. `exactly_once` requires 1: the tail check relies on batches reaching each partition in order."),
		service.NewBatchPolicyField(fieldBatching),
		service.NewStringField(fieldMaxMessageBytes).
			Description("The largest record batch the client sends, which also bounds a single record; a message larger than this fails its batch. Bytes, with units such as `KB`, `MiB`.").
			Default("1MiB").
			Example("100MB").
			Example("50mib"),
		service.NewStringField(fieldCompression).
			Description("The compression of record batches: `none`, `gzip`, `snappy`, `lz4` or `zstd`. Unset: franz-go's default preference (snappy, then none).").
			LintRule(enumLint(fieldCompression, compressions)).
			Example("lz4").
			Optional(),
		service.NewDurationField(fieldTimeout).
			Description("How long one batch may take to be written (and, with `exactly_once`, committed), and how long each broker request may take. With `exactly_once` it bounds each attempt (a failed one is tried again in place), the read of a partition's last committed record, and the wait for another producer's open transaction on that partition.").
			Default("10s"),
		service.NewBoolField(fieldIdempotent).
			Description("Idempotent writes: the broker drops the client's own retry duplicates. Needs `acks=all` (used then) and the `IDEMPOTENT_WRITE` permission on older clusters. `exactly_once` requires it.").
			Default(true),
		service.NewBoolField(fieldAutoCreate).
			Description("Let the brokers create a missing topic on first write, where the cluster allows it (`auto.create.topics.enable`).").
			Default(true).
			Advanced(),
	}
}

func securityFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewTLSToggledField(fieldTLS),
		service.NewObjectListField(fieldSASL,
			service.NewStringField(fieldSASLMechanism).
				Description("The SASL mechanism: `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`, or `none`.").
				LintRule(enumLint("sasl.mechanism", saslMechanism)),
			service.NewStringField(fieldSASLUsername).
				Description("The user name.").
				Default(""),
			service.NewStringField(fieldSASLPassword).
				Description("The password.").
				Default("").
				Secret(),
		).
			Description("SASL authentication, tried in the order listed. Combine with `tls` so the credentials never travel in the clear (PLAIN sends the password as it is).").
			Example([]map[string]any{{"mechanism": "SCRAM-SHA-512", "username": "doris", "password": "${KAFKA_PASSWORD}"}}).
			Optional().
			Advanced(),
	}
}

func exactlyOnceFields() []*service.ConfigField {
	return []*service.ConfigField{
		service.NewBoolField(fieldExactlyOnce).
			Description("Write each batch in one transaction and drop replayed changes already written (see the description). Needs `transactional_id`, `max_in_flight: 1`, `pipeline.threads: 1` (checked when `rpconnect-doris run` starts, since a component's lint cannot see the pipeline; Benthos's default -1 is one thread per CPU), `idempotent_write`, and a partition that a replay reproduces: `key` with `murmur2_hash` (an empty key is a key: such records share one partition), or `partitioner: manual`.").
			Default(false),
		service.NewStringField(fieldTransactionalID).
			Description("With `exactly_once`: the Kafka transactional id, also written as the header `transactional_id` of every record. One running instance per id: starting one fences any older producer with the same id, which then stops with an error saying that another instance took over. Several instances need distinct ids and disjoint table selections; they may share topics and partitions.").
			Example("doris-shop-to-kafka").
			Default(""),
		service.NewIntField(fieldMaxTailScan).
			Description("With `exactly_once`: how many offsets back from a partition's end the search for this writer's last record reads at most, in windows growing fourfold from 256, each read within `timeout`. Records of other writers sharing the topic are skipped, so a partition where others wrote many records since this writer's last one needs a larger bound. When the bound is reached without a record of this writer the output stops with an error naming the partition, instead of writing replayed changes again.").
			Example(10000000).
			Default(1000000).
			Advanced(),
	}
}

func quoted(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = `"` + x + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func specLintRule() string {
	return `let unsupported = this.keys().filter(k -> ` + quoted(unsupportedFields) + `.contains(k)).map_each(k -> "%s is a field of Redpanda Connect's kafka_franz that this kafka_franz does not support; remove it".format(k))
let eo = this.exactly_once.or(false)
let manual = this.partitioner.or("") == "manual"
root = [
  if $eo && this.transactional_id.or("") == "" { "exactly_once needs transactional_id: the Kafka transactional id of this writer" } else { "" },
  if $eo && this.max_in_flight.or(256) != 1 { "exactly_once needs max_in_flight: 1; got %v: batches must reach each partition in order".format(this.max_in_flight.or(256)) } else { "" },
  if $eo && !this.idempotent_write.or(true) { "exactly_once needs idempotent_write: true: Kafka transactions are idempotent" } else { "" },
  if $eo && ["round_robin", "least_backup"].contains(this.partitioner.or("")) { "exactly_once needs partitioner murmur2_hash or manual: a replayed message must land in the partition it was written to" } else { "" },
  if $eo && !$manual && this.key.or("") == "" { "exactly_once needs key (or partitioner: manual): without a key a replayed message may land in another partition" } else { "" },
  if this.delete_tombstones.or(false) && this.key.or("") == "" { "delete_tombstones needs key: a tombstone removes its key from a compacted topic" } else { "" },
  if !$eo && this.transactional_id.or("") != "" { "transactional_id is used only with exactly_once: true" } else { "" },
  if $manual && this.partition.or("") == "" { "partitioner manual needs partition" } else { "" },
  if !$manual && this.partition.or("") != "" { "partition is used only with partitioner: manual" } else { "" },
].filter(e -> e != "").merge($unsupported)`
}
