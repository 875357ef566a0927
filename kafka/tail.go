package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// topicPartition names one partition.
type topicPartition struct {
	topic     string
	partition int32
}

func (tp topicPartition) String() string { return fmt.Sprintf("%s/%d", tp.topic, tp.partition) }

// tail is how far a partition got: the position of its last committed
// record; known with pos nil means that record has no position (or the
// partition is empty).
type tail struct {
	pos *checkpoint.Pos
}

// firstTailWindow is how many offsets before the last stable offset the
// tail read starts at; it grows fourfold while only aborted records and
// transaction markers are found.
const firstTailWindow = 256

// partitionCount asks the brokers for topic's partition count, creating
// the topic when allowed and waiting (within ctx) for a new topic's leaders.
func partitionCount(ctx context.Context, cl *kgo.Client, topic string, autoCreate bool) (int, error) {
	for attempt := 1; ; attempt++ {
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, rt)
		req.AllowAutoTopicCreation = autoCreate
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return 0, fmt.Errorf("metadata of topic %s: %w", topic, err)
		}
		if len(resp.Topics) != 1 {
			return 0, fmt.Errorf("metadata of topic %s: the broker answered %d topics", topic, len(resp.Topics))
		}
		t := resp.Topics[0]
		err = kerr.ErrorForCode(t.ErrorCode)
		if err == nil && len(t.Partitions) > 0 {
			return len(t.Partitions), nil
		}
		if err == nil || errors.Is(err, kerr.LeaderNotAvailable) || (autoCreate && errors.Is(err, kerr.UnknownTopicOrPartition)) {
			if serr := (doris.BackoffPolicy{Base: 50 * time.Millisecond, Max: time.Second}).Sleep(ctx, attempt); serr != nil {
				return 0, fmt.Errorf("topic %s has no partitions yet: %w", topic, serr)
			}
			continue
		}
		return 0, fmt.Errorf("metadata of topic %s: %w", topic, err)
	}
}

// readTails reads the last committed record of each partition with
// read_committed and returns its position; on an error, those read so far.
// Each partition gets its own timeout.
func readTails(ctx context.Context, c *config, cl *kgo.Client, tps []topicPartition) (map[topicPartition]tail, error) {
	out := make(map[topicPartition]tail, len(tps))
	for _, tp := range tps {
		t, err := readPartitionTail(ctx, c, cl, tp)
		if err != nil {
			return out, err
		}
		out[tp] = t
	}
	return out, nil
}

func readPartitionTail(ctx context.Context, c *config, cl *kgo.Client, tp topicPartition) (tail, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	adm := kadm.NewClient(cl)
	starts, err := adm.ListStartOffsets(ctx, tp.topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return tail{}, fmt.Errorf("start offsets of %s: %w", tp.topic, err)
	}
	ends, err := adm.ListCommittedOffsets(ctx, tp.topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return tail{}, fmt.Errorf("last stable offsets of %s: %w", tp.topic, err)
	}
	s, ok1 := starts.Lookup(tp.topic, tp.partition)
	e, ok2 := ends.Lookup(tp.topic, tp.partition)
	if !ok1 || !ok2 {
		return tail{}, fmt.Errorf("partition %s: no offsets answered", tp)
	}
	return readTail(ctx, c, tp, s.Offset, e.Offset)
}

// readTail finds the last committed data record below the last stable
// offset lso, reading backwards in growing windows down to start.
func readTail(ctx context.Context, c *config, tp topicPartition, start, lso int64) (tail, error) {
	for window := int64(firstTailWindow); lso > start; window *= 4 {
		from := max(start, lso-window)
		rec, err := lastRecord(ctx, c, tp, from, lso)
		if err != nil {
			return tail{}, err
		}
		if rec != nil {
			where := fmt.Sprintf("last committed record of %s (offset %d)", tp, rec.Offset)
			pos, err := headerPosition(headerMap(rec), where)
			return tail{pos: pos}, err
		}
		if from == start {
			break
		}
	}
	return tail{}, nil
}

func headerMap(r *kgo.Record) map[string]string {
	m := make(map[string]string, len(r.Headers))
	for _, h := range r.Headers {
		m[h.Key] = string(h.Value)
	}
	return m
}

// lastRecord reads [from, lso) with read_committed and returns its last data
// record, nil when the range holds only markers and aborted records.
// Control records are kept so that reading knows when it reached lso-1,
// which is always a record: a data record or a transaction marker.
func lastRecord(ctx context.Context, c *config, tp topicPartition, from, lso int64) (*kgo.Record, error) {
	opts := append(c.connOpts(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{tp.topic: {tp.partition: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("reader of %s: %w", tp, err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var last *kgo.Record
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading the last committed record of %s (offsets %d to %d) within timeout %s: %w", tp, from, lso, c.timeout, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return nil, fmt.Errorf("reading the last committed record of %s: %w", tp, ferr)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= lso {
				done = true
				return
			}
			if !r.Attrs.IsControl() {
				last = r
			}
			if r.Offset == lso-1 {
				done = true
			}
		})
		if done {
			return last, nil
		}
	}
}
