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

// tail is how far this writer got in a partition: the position of its last
// committed record that has one; pos nil means the partition holds no such
// record of this writer.
type tail struct {
	pos *checkpoint.Pos
	// null: that record is a tombstone (a null value), which comes after
	// the delete whose position it shares.
	null bool
	// offset is the record's offset (-1 with pos nil), for the log.
	offset int64
}

// before reports whether a record at pos, with a null value or not, comes
// after the tail. A delete and its tombstone share a position: the
// tombstone is the later of the two.
func (t tail) before(pos checkpoint.Pos, null bool) bool {
	if t.pos == nil {
		return true
	}
	c := t.pos.Compare(pos)
	return c < 0 || c == 0 && !t.null && null
}

// firstTailWindow is how many offsets before a partition's end the tail
// search reads first; each further window, before the last, is four times
// larger, while no record of this writer with a position is found.
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

// readTails finds this writer's tail in each partition; on an error, it
// returns those found so far.
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
	start, end, err := settledRange(ctx, c, cl, tp)
	if err != nil {
		return tail{}, err
	}
	return readTail(ctx, c, tp, start, end)
}

// settledRange returns the partition's start offset and its end (high
// watermark), checking that no transaction is open below that end: another
// producer's open transaction holds the last stable offset back, and this
// writer's records committed after it began would not be read. waitStable
// has waited for such transactions, with a log line; one opened since then
// fails this read, and the write loop tries again (waiting again).
func settledRange(ctx context.Context, c *config, cl *kgo.Client, tp topicPartition) (start, end int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	adm := kadm.NewClient(cl)
	lookup := func(what string, list func(context.Context, ...string) (kadm.ListedOffsets, error)) (int64, error) {
		l, err := list(ctx, tp.topic)
		if err == nil {
			err = l.Error()
		}
		if err != nil {
			return 0, fmt.Errorf("%s of %s: %w", what, tp.topic, err)
		}
		o, ok := l.Lookup(tp.topic, tp.partition)
		if !ok {
			return 0, fmt.Errorf("%s of %s: no offset answered", what, tp)
		}
		return o.Offset, nil
	}
	if start, err = lookup("start offsets", adm.ListStartOffsets); err != nil {
		return 0, 0, err
	}
	if end, err = lookup("end offsets", adm.ListEndOffsets); err != nil {
		return 0, 0, err
	}
	lso, err := lookup("last stable offsets", adm.ListCommittedOffsets)
	if err != nil {
		return 0, 0, err
	}
	if lso < end {
		return 0, 0, fmt.Errorf("partition %s: a transaction of another producer opened at offset %d (the partition ends at %d) just before the tail read; "+
			"this writer's records after it cannot be read until it commits or aborts", tp, lso, end)
	}
	return start, end, nil
}

// readTail finds this writer's last committed record with a position below
// end, reading backwards in windows that grow fourfold, down to start or
// max_tail_scan_records offsets before end. Other writers' records, and
// this writer's snapshot rows, are skipped.
func readTail(ctx context.Context, c *config, tp topicPartition, start, end int64) (tail, error) {
	floor := max(start, end-c.tailScan)
	to := end
	for window := int64(firstTailWindow); to > start; window *= 4 {
		if to <= floor {
			return tail{}, doris.Permanent(fmt.Errorf("partition %s: no record of transactional_id %q among its last %d offsets (%d to %d), where other writers' records or snapshot rows lie; "+
				"raise %s to search further back", tp, c.txnID, c.tailScan, floor, end, fieldMaxTailScan))
		}
		from := max(floor, to-window)
		rec, err := lastOwnRecord(ctx, c, tp, from, to)
		if err != nil {
			return tail{}, err
		}
		if rec != nil {
			where := fmt.Sprintf("partition %s: record at offset %d, written under transactional_id %q,", tp, rec.Offset, c.txnID)
			pos, err := headerPosition(headerMap(rec), where)
			if err != nil {
				// This writer's own record: its positions are wrong, and
				// guessing where the partition stands could drop or
				// repeat changes.
				return tail{}, doris.Permanent(err)
			}
			return tail{pos: pos, null: rec.Value == nil, offset: rec.Offset}, nil
		}
		to = from
	}
	return tail{offset: -1}, nil
}

func headerMap(r *kgo.Record) map[string]string {
	m := make(map[string]string, len(r.Headers))
	for _, h := range r.Headers {
		m[h.Key] = string(h.Value)
	}
	return m
}

// ownPositioned reports whether r is a data record of this writer with a
// position (a tso header) that orders it: a catch-up row's does not.
func ownPositioned(r *kgo.Record, txnID string) bool {
	var own, positioned, catchUp bool
	for _, h := range r.Headers {
		switch h.Key {
		case headerWriter:
			own = string(h.Value) == txnID
		case metaTSO:
			positioned = true
		case metaPhase:
			catchUp = string(h.Value) == phaseCatchUp
		}
	}
	return own && positioned && !catchUp && !r.Attrs.IsControl()
}

// lastOwnRecord reads [from, to) with read_committed and returns the last
// record of this writer with a position, nil when there is none. Control
// records are kept so that reading knows when it passed to-1: every offset
// below the last stable offset is a data record, a transaction marker, an
// aborted record or one compacted away, and a record at to-1 or after
// (the end is read first, below a settled last stable offset) always comes.
func lastOwnRecord(ctx context.Context, c *config, tp topicPartition, from, to int64) (*kgo.Record, error) {
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
			return nil, fmt.Errorf("reading the records of %s (offsets %d to %d) within timeout %s: %w", tp, from, to, c.timeout, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return nil, fmt.Errorf("reading the records of %s (offsets %d to %d): %w", tp, from, to, ferr)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if done || r.Offset >= to {
				done = true
				return
			}
			if ownPositioned(r, c.txnID) {
				last = r
			}
			done = r.Offset == to-1
		})
		if done {
			return last, nil
		}
	}
}
