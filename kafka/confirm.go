package kafka

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// confirmBackoff is the wait between looks at a partition whose
// transaction marker is not written yet: a broker writes the markers after
// it answers the commit.
var confirmBackoff = doris.BackoffPolicy{Base: 20 * time.Millisecond, Max: 500 * time.Millisecond}

// confirmMaxBytes bounds each partition's answer.
const confirmMaxBytes = 1 << 20

// written is where a transaction's last record in a partition landed, and
// the producer id its marker carries.
type written struct {
	offset int64
	pid    int64
}

// lastWritten is, per partition, the last of recs, as the client set them
// when it wrote them.
func lastWritten(recs []*kgo.Record) map[topicPartition]written {
	out := map[topicPartition]written{}
	for _, r := range recs {
		tp := topicPartition{r.Topic, r.Partition}
		if w, ok := out[tp]; !ok || r.Offset > w.offset {
			out[tp] = written{offset: r.Offset, pid: r.ProducerID}
		}
	}
	return out
}

// confirmCommitted checks, after a commit the client reported as done,
// that the transaction ended with a commit marker in each partition it
// wrote: the first transaction marker of this producer after its last
// record there. franz-go (v1.22.3) can end a transaction with an abort and
// still return nil from EndTransaction(TryCommit): it does so when no
// partition counts as added to the transaction although records were
// produced, a state its produce path was seen to leave under heavy load,
// with a new producer (see docs/contracts.md, "kafka (`kafka_franz`)"). Trusting
// that nil would acknowledge a batch that is not in Kafka, and the input
// would never send it again. An abort marker is an error: the write is
// tried again in place, with a new producer that reads the tails again and
// writes what is missing. The markers are read uncommitted, so another
// producer's open transaction does not hold the check back.
func (e *exactlyOnce) confirmCommitted(ctx context.Context, last map[topicPartition]written) error {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	defer cancel()
	var topics []string
	for tp := range last {
		if !slices.Contains(topics, tp.topic) {
			topics = append(topics, tp.topic)
		}
	}
	meta, err := metadataRequest(topics, false).RequestWith(ctx, e.cl)
	if err != nil {
		return fmt.Errorf("confirming the commit of %q: metadata of %v: %w", e.cfg.txnID, topics, err)
	}
	ids := map[string][16]byte{}
	names := map[[16]byte]string{}
	leaders := map[topicPartition]int32{}
	for _, t := range meta.Topics {
		if t.Topic == nil {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("confirming the commit of %q: metadata of topic %s: %w", e.cfg.txnID, *t.Topic, err)
		}
		ids[*t.Topic] = t.TopicID
		names[t.TopicID] = *t.Topic
		for _, p := range t.Partitions {
			leaders[topicPartition{*t.Topic, p.Partition}] = p.Leader
		}
	}
	// from is, per partition still to confirm, the next offset to read.
	from := make(map[topicPartition]int64, len(last))
	for tp, w := range last {
		if _, ok := leaders[tp]; !ok {
			return fmt.Errorf("confirming the commit of %q: partition %s: no leader in the metadata answer", e.cfg.txnID, tp)
		}
		from[tp] = w.offset + 1
	}
	for attempt := 1; ; attempt++ {
		progressed := false
		for leader, tps := range byLeader(from, leaders) {
			resp, err := fetchRequest(tps, from, ids).RequestWith(ctx, e.cl.Broker(int(leader)))
			if err == nil {
				err = kerr.ErrorForCode(resp.ErrorCode)
			}
			if err != nil {
				return fmt.Errorf("confirming the commit of %q: reading %v from broker %d: %w", e.cfg.txnID, tps, leader, err)
			}
			for i := range resp.Topics {
				rt := &resp.Topics[i]
				topic := rt.Topic
				if topic == "" {
					topic = names[rt.TopicID]
				}
				for j := range rt.Partitions {
					tp := topicPartition{topic, rt.Partitions[j].Partition}
					at, ok := from[tp]
					if !ok {
						continue
					}
					next, done, err := findMarker(&rt.Partitions[j], tp, at, last[tp])
					if err != nil {
						return fmt.Errorf("confirming the commit of %q: %w", e.cfg.txnID, err)
					}
					switch {
					case done:
						delete(from, tp)
					case next > at:
						from[tp] = next
						progressed = true
					}
				}
			}
		}
		if len(from) == 0 {
			return nil
		}
		if progressed {
			continue
		}
		if err := confirmBackoff.Sleep(ctx, attempt); err != nil {
			return fmt.Errorf("confirming the commit of %q: no transaction marker of this producer after its records in %v yet (timeout %s): %w",
				e.cfg.txnID, slices.Collect(maps.Keys(from)), e.cfg.timeout, err)
		}
	}
}

// findMarker reads an answer from offset at for the first transaction
// marker of w's producer: a commit marker confirms, an abort marker is an
// error. Without it, it returns the offset to read from next.
func findMarker(rp *kmsg.FetchResponseTopicPartition, tp topicPartition, at int64, w written) (next int64, done bool, err error) {
	if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
		return at, false, fmt.Errorf("reading %s from offset %d: %w", tp, at, err)
	}
	fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
		Topic: tp.topic, Partition: tp.partition, Offset: at, IsolationLevel: kgo.ReadUncommitted(), KeepControlRecords: true,
	}, rp, kgo.DefaultDecompressor(), nil)
	if fp.Err != nil {
		return at, false, fmt.Errorf("reading %s from offset %d: %w", tp, at, fp.Err)
	}
	next = at
	for _, r := range fp.Records {
		next = max(next, r.Offset+1)
		if !r.Attrs.IsControl() || r.ProducerID != w.pid {
			continue
		}
		// A control record's key is a version and a type: 0 abort, 1
		// commit.
		if len(r.Key) >= 4 && r.Key[2] == 0 && r.Key[3] == 1 {
			return next, true, nil
		}
		return next, false, fmt.Errorf("the client reported the commit as done, but the transaction that wrote %s up to offset %d ended with an abort marker (offset %d): "+
			"its records are not committed, and the batch is written again", tp, w.offset, r.Offset)
	}
	return next, false, nil
}

func byLeader(from map[topicPartition]int64, leaders map[topicPartition]int32) map[int32][]topicPartition {
	out := map[int32][]topicPartition{}
	for tp := range from {
		out[leaders[tp]] = append(out[leaders[tp]], tp)
	}
	return out
}

// fetchRequest reads each of tps from its offset in from, uncommitted,
// without a fetch session and without waiting.
func fetchRequest(tps []topicPartition, from map[topicPartition]int64, ids map[string][16]byte) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 1
	req.MaxBytes = confirmMaxBytes
	req.IsolationLevel = 0
	req.SessionID = 0
	req.SessionEpoch = -1
	idx := map[string]int{}
	for _, tp := range tps {
		i, ok := idx[tp.topic]
		if !ok {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = tp.topic
			rt.TopicID = ids[tp.topic]
			req.Topics = append(req.Topics, rt)
			i = len(req.Topics) - 1
			idx[tp.topic] = i
		}
		p := kmsg.NewFetchRequestTopicPartition()
		p.Partition = tp.partition
		p.FetchOffset = from[tp]
		p.PartitionMaxBytes = confirmMaxBytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	return req
}
