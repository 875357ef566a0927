package kafka

import (
	"fmt"
	"strconv"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// The metadata doris_binlog sets that make a change's position; each is
// written as the header of the same name.
const (
	metaTSO       = "tso"
	metaDatabase  = "database_schema"
	metaTable     = "table"
	metaLSN       = "lsn"
	metaOperation = "operation"
)

var positionKeys = [...]string{metaTSO, metaDatabase, metaTable, metaLSN, metaOperation}

// record is one message ready to be written, with its position when it
// carries one.
type record struct {
	rec *kgo.Record
	pos *checkpoint.Pos // nil: no position (a snapshot row, another input)
}

// toRecord builds message i's record. withPositions adds the position
// headers the metadata filter did not select.
func (c *config) toRecord(batch service.MessageBatch, i int, withPositions bool) (record, error) {
	msg := batch[i]
	body, err := msg.AsBytes()
	if err != nil {
		return record{}, fmt.Errorf("message body: %w", err)
	}
	if len(body) == 0 {
		body = nil // a null value: a tombstone on a compacted topic
	}
	r := &kgo.Record{Value: body}
	if r.Topic, err = batch.TryInterpolatedString(i, c.topic); err != nil {
		return record{}, fmt.Errorf("%s interpolation: %w", fieldTopic, err)
	}
	if r.Topic == "" {
		return record{}, fmt.Errorf("%s interpolated to an empty topic", fieldTopic)
	}
	if c.key != nil {
		if r.Key, err = batch.TryInterpolatedBytes(i, c.key); err != nil {
			return record{}, fmt.Errorf("%s interpolation: %w", fieldKey, err)
		}
		if r.Key == nil {
			// An empty key is still a key: murmur2 puts every such record
			// in one partition (DUPLICATE KEY tables), where a nil key
			// would spread them at random.
			r.Key = []byte{}
		}
	}
	if err := c.setPartition(batch, i, r); err != nil {
		return record{}, err
	}
	if err := c.setTimestamp(batch, i, r); err != nil {
		return record{}, err
	}
	if err := c.setHeaders(msg, r, withPositions); err != nil {
		return record{}, err
	}
	pos, err := messagePosition(msg)
	if err != nil {
		return record{}, fmt.Errorf("topic %s: %w", r.Topic, err)
	}
	return record{rec: r, pos: pos}, nil
}

func (c *config) setPartition(batch service.MessageBatch, i int, r *kgo.Record) error {
	if c.partition == nil {
		return nil
	}
	s, err := batch.TryInterpolatedString(i, c.partition)
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

func (c *config) setTimestamp(batch service.MessageBatch, i int, r *kgo.Record) error {
	if c.timestamp == nil {
		return nil
	}
	s, err := batch.TryInterpolatedString(i, c.timestamp)
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
		_ = c.meta.Walk(msg, func(k, v string) error {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
			return nil
		})
	}
	if !withPositions {
		return nil
	}
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
