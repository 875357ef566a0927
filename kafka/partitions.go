package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// checkCounts asks the brokers, before every write, for the partition
// count of each topic of recs that an earlier write counted (counted holds
// those this write counted itself), and refuses to write once it changed.
// The output hashes keys onto the count it first saw: with more
// partitions, a replayed change would land in another partition than its
// first copy, past the tail check, and a key's changes would be split over
// two partitions. A restart takes the new count, after the input saved
// the position of everything written so far. partitioner: manual moves
// nothing, and is not checked.
func (e *exactlyOnce) checkCounts(ctx context.Context, recs []record, counted map[string]bool) error {
	if e.cfg.partitioner == partManual {
		return nil
	}
	var topics []string
	seen := map[string]bool{}
	for _, r := range recs {
		if t := r.rec.Topic; !counted[t] && !seen[t] {
			seen[t] = true
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	defer cancel()
	now, err := partitionCounts(ctx, e.cl, topics)
	if err != nil {
		return err
	}
	for _, t := range topics {
		if n, was := now[t], e.counts[t]; n != was {
			return doris.Permanent(fmt.Errorf("topic %s has %d partitions now, and this output has hashed keys onto %d since it started: "+
				"keys that hash to another partition now would leave their earlier changes in the old one, where the exactly_once check does not look, "+
				"and a consumer could read them out of order. Nothing of this batch was written. "+
				"Restart the pipeline to write onto %d partitions (see \"Adding partitions\" in the kafka_franz documentation)", t, n, was, n))
		}
	}
	return nil
}

// partitionCounts asks the brokers for the partition count of existing
// topics, in one request.
func partitionCounts(ctx context.Context, cl *kgo.Client, topics []string) (map[string]int, error) {
	resp, err := metadataRequest(topics, false).RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("partition counts of %v: %w", topics, err)
	}
	out := make(map[string]int, len(topics))
	for _, t := range resp.Topics {
		if t.Topic == nil {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return nil, fmt.Errorf("partition count of topic %s: %w", *t.Topic, err)
		}
		out[*t.Topic] = len(t.Partitions)
	}
	for _, t := range topics {
		if _, ok := out[t]; !ok {
			return nil, fmt.Errorf("partition count of topic %s: the broker's answer does not hold the topic", t)
		}
	}
	return out, nil
}

// partitionCount asks the brokers for topic's partition count, creating
// the topic when allowed and waiting (within ctx) for a new topic's leaders.
func partitionCount(ctx context.Context, cl *kgo.Client, topic string, autoCreate bool) (int, error) {
	for attempt := 1; ; attempt++ {
		resp, err := metadataRequest([]string{topic}, autoCreate).RequestWith(ctx, cl)
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

// metadataRequest asks for the metadata of topics.
func metadataRequest(topics []string, autoCreate bool) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	req.AllowAutoTopicCreation = autoCreate
	return req
}
