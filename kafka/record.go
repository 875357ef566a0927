package kafka

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// The metadata doris_binlog sets that make a change's position; each is
// written as the header of the same name.
const (
	metaTSO       = "tso"
	metaDatabase  = "database_schema"
	metaTable     = "table"
	metaLSN       = "lsn"
	metaOperation = "operation"

	// metaPhase is "catchup" on the rows of a table that doris_binlog reads
	// on its own before the table joins the shared windows. They can be
	// older than rows of other tables already written to a shared
	// partition, so their position says nothing of what the partition
	// holds: exactly_once writes them at least once, as snapshot rows.
	metaPhase    = "doris_phase"
	phaseCatchUp = "catchup"
)

// positionKeys are written on every exactly_once record that has a tso,
// whatever metadata selects; doris_phase too, so that the tail search can
// tell catch-up rows apart.
var positionKeys = [...]string{metaTSO, metaDatabase, metaTable, metaLSN, metaOperation, metaPhase}

// opDelete is the operation whose message delete_tombstones follows with a
// tombstone.
const opDelete = "delete"

// headerWriter tags every record exactly_once writes with its
// transactional_id: the tail check takes a partition's position only from
// its own records, so several instances (or other producers) may share a
// topic.
const headerWriter = "transactional_id"

// record is one message ready to be written, with its position when it
// carries one.
type record struct {
	rec *kgo.Record
	pos *checkpoint.Pos // nil: no position (a snapshot row, another input)
	// mark: rec is a transaction marker; pos then holds only its TSO.
	mark txmarkers.Kind
	// tomb is the tombstone that follows a delete (delete_tombstones): rec
	// with a null value. It shares rec's position and belongs in rec's
	// partition.
	tomb *kgo.Record
}

// recordBuilder builds the records of one batch. Its interpolations see
// the whole batch, as Redpanda Connect's do, but the batch is converted for
// them once, not once per message and field (which made a batch cost the
// square of its size).
type recordBuilder struct {
	c                                *config
	batch                            service.MessageBatch
	topic, key, partition, timestamp *service.MessageBatchInterpolationExecutor
}

func (c *config) builder(batch service.MessageBatch) *recordBuilder {
	b := &recordBuilder{c: c, batch: batch, topic: batch.InterpolationExecutor(c.topic)}
	if c.key != nil {
		b.key = batch.InterpolationExecutor(c.key)
	}
	if c.partition != nil {
		b.partition = batch.InterpolationExecutor(c.partition)
	}
	if c.timestamp != nil {
		b.timestamp = batch.InterpolationExecutor(c.timestamp)
	}
	return b
}

// toRecord builds message i's record. withPositions (exactly_once) adds the
// position headers the metadata filter did not select and the writer's tag.
func (b *recordBuilder) toRecord(i int, withPositions bool) (record, error) {
	c, msg := b.c, b.batch[i]
	body, err := msg.AsBytes()
	if err != nil {
		return record{}, fmt.Errorf("message body: %w", err)
	}
	if len(body) == 0 {
		body = nil // a null value: a tombstone on a compacted topic
	}
	r := &kgo.Record{Value: body}
	if r.Topic, err = b.topic.TryString(i); err != nil {
		return record{}, fmt.Errorf("%s interpolation: %w", fieldTopic, err)
	}
	if r.Topic == "" {
		return record{}, fmt.Errorf("%s interpolated to an empty topic", fieldTopic)
	}
	if c.key != nil {
		if r.Key, err = b.key.TryBytes(i); err != nil {
			return record{}, fmt.Errorf("%s interpolation: %w", fieldKey, err)
		}
		if r.Key == nil {
			// An empty key is still a key: murmur2 puts every such record
			// in one partition (DUPLICATE KEY tables), where a nil key
			// would spread them at random.
			r.Key = []byte{}
		}
	}
	if err := b.setPartition(i, r); err != nil {
		return record{}, err
	}
	if err := b.setTimestamp(i, r); err != nil {
		return record{}, err
	}
	if err := c.setHeaders(msg, r, withPositions); err != nil {
		return record{}, err
	}
	pos, mark, err := messagePosition(msg)
	if err != nil {
		return record{}, fmt.Errorf("topic %s: %w", r.Topic, err)
	}
	out := record{rec: r, pos: pos, mark: mark}
	if c.tombstones {
		if op, _ := msg.MetaGet(metaOperation); op == opDelete {
			out.tomb = &kgo.Record{Topic: r.Topic, Key: r.Key, Partition: r.Partition, Timestamp: r.Timestamp, Headers: slices.Clone(r.Headers)}
		}
	}
	return out, nil
}

// kafkaRecords is the records of recs in order, each delete's tombstone
// right after it.
func kafkaRecords(recs []record) []*kgo.Record {
	out := make([]*kgo.Record, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.rec)
		if r.tomb != nil {
			out = append(out, r.tomb)
		}
	}
	return out
}

func (b *recordBuilder) setPartition(i int, r *kgo.Record) error {
	if b.partition == nil {
		return nil
	}
	s, err := b.partition.TryString(i)
	if err != nil {
		return fmt.Errorf("%s interpolation: %w", fieldPartition, err)
	}
	p, err := strconv.ParseInt(s, 10, 32)
	if err != nil || p < 0 {
		return fmt.Errorf("%s must be a partition number; got %q", fieldPartition, s)
	}
	r.Partition = int32(p)
	return nil
}

func (b *recordBuilder) setTimestamp(i int, r *kgo.Record) error {
	if b.timestamp == nil {
		return nil
	}
	s, err := b.timestamp.TryString(i)
	if err != nil {
		return fmt.Errorf("%s interpolation: %w", fieldTimestampMs, err)
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s must be milliseconds since the epoch; got %q", fieldTimestampMs, s)
	}
	r.Timestamp = time.UnixMilli(ms)
	return nil
}

func (c *config) setHeaders(msg *service.Message, r *kgo.Record, withPositions bool) error {
	if c.meta != nil {
		// Walk would render every metadata value as a string first, the
		// structured ones (key_columns, ...) as JSON, most of them only to be
		// filtered out: in the Doris -> Kafka bench that was 40% of the
		// client's CPU. Only the kept values are rendered here.
		_ = c.meta.WalkMut(msg, func(k string, _ any) error {
			if withPositions && k == headerWriter {
				return nil // the writer's own tag is the one that counts
			}
			v, _ := msg.MetaGet(k)
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
			return nil
		})
	}
	if !withPositions {
		return nil
	}
	r.Headers = append(r.Headers, kgo.RecordHeader{Key: headerWriter, Value: []byte(c.txnID)})
	if _, ok := msg.MetaGet(metaTSO); !ok {
		return nil
	}
	for _, k := range positionKeys {
		if c.meta != nil && c.meta.Match(k) {
			continue
		}
		if v, ok := msg.MetaGet(k); ok {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
		}
	}
	return nil
}
