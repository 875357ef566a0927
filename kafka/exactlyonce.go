package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// exactlyOnce writes each batch in one transaction and drops the changes a
// partition already holds. It relies on batches arriving in position order
// (max_in_flight 1, pipeline.threads 1) and on being the only writer of its
// transactional id.
type exactlyOnce struct {
	cfg  *config
	log  *service.Logger
	m    *txnMetrics
	dial func(context.Context) (*kgo.Client, error) // a new producer

	mu     sync.Mutex
	cl     *kgo.Client // nil after a failed transaction, until the next write
	closed bool
	counts map[string]int                  // partitions per topic, as first seen
	tails  map[topicPartition]tail         // committed tail per partition written
	hashes map[string]kgo.TopicPartitioner // the partitioner per topic
}

// errClosed is a write's answer after Close.
var errClosed = errors.New("the output is closed")

func newExactlyOnce(c *config, cl *kgo.Client, dial func(context.Context) (*kgo.Client, error), log *service.Logger, m *txnMetrics) *exactlyOnce {
	return &exactlyOnce{cfg: c, cl: cl, dial: dial, log: log, m: m, counts: map[string]int{}, tails: map[topicPartition]tail{}, hashes: map[string]kgo.TopicPartitioner{}}
}

// write is one attempt at batch. What it learnt (partition counts, tails
// read) is kept for the next attempt, except what a failed transaction
// leaves in doubt.
func (e *exactlyOnce) write(ctx context.Context, batch service.MessageBatch) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errClosed
	}
	if e.cl == nil {
		// A new producer id bumps the epoch, which aborts what is left of
		// the failed transaction before the tails are read again.
		cl, err := e.dial(ctx)
		if err != nil {
			return err
		}
		e.cl = cl
	}
	// Each step has a timeout of its own: the first batch may meet many
	// new topics and partitions, and what was learnt is kept.
	recs, counted, err := e.records(ctx, batch)
	if err != nil {
		return err
	}
	if err := e.checkCounts(ctx, recs, counted); err != nil {
		return err
	}
	if err := e.loadTails(ctx, recs); err != nil {
		return err
	}
	keep, next, dropped := e.filter(recs)
	if dropped > 0 {
		e.m.dropped.Incr(int64(dropped))
		e.log.Infof("kafka_franz: dropped %d of %d messages already written under transactional_id %q", dropped, len(recs), e.cfg.txnID)
	}
	if len(keep) == 0 {
		return nil
	}
	tctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	defer cancel()
	err = e.transact(tctx, keep)
	if err == nil {
		// The client's nil is not proof of a commit (see
		// confirmCommitted); confirming has a timeout of its own.
		if err = e.confirmCommitted(ctx, lastWritten(keep)); err != nil {
			e.m.aborted.Incr(1)
		}
	}
	if err != nil {
		// The outcome may be unknown (a commit whose answer was lost):
		// the next attempt starts a new producer and reads every tail
		// again. A fenced producer gets no next attempt (see
		// writeExactlyOnce): a new one would fence the instance that took
		// over.
		clear(e.tails)
		e.cl.Close()
		e.cl = nil
		return err
	}
	e.m.committed.Incr(1)
	for tp, t := range next {
		e.tails[tp] = t
	}
	return nil
}

func (e *exactlyOnce) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.cl != nil {
		e.cl.Close()
		e.cl = nil
	}
}

// records builds the batch's records and assigns each its partition; it
// also returns the topics whose partition count it asked for.
func (e *exactlyOnce) records(ctx context.Context, batch service.MessageBatch) ([]record, map[string]bool, error) {
	recs := make([]record, len(batch))
	counted := map[string]bool{}
	b := e.cfg.builder(batch)
	for i := range batch {
		r, err := b.toRecord(i, true)
		if err != nil {
			// The same message fails the same way on every attempt.
			return nil, nil, doris.Permanent(fmt.Errorf("message %d: %w", i, err))
		}
		if _, ok := e.counts[r.rec.Topic]; !ok {
			counted[r.rec.Topic] = true
		}
		if err := e.assignPartition(ctx, r.rec); err != nil {
			return nil, nil, err
		}
		recs[i] = r
	}
	return recs, counted, nil
}

func (e *exactlyOnce) assignPartition(ctx context.Context, r *kgo.Record) error {
	n, ok := e.counts[r.Topic]
	if !ok {
		pctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
		var err error
		n, err = partitionCount(pctx, e.cl, r.Topic, e.cfg.autoCreate)
		cancel()
		if err != nil {
			return err
		}
		e.counts[r.Topic] = n
		e.hashes[r.Topic] = partitioner(e.cfg.partitioner).ForTopic(r.Topic)
	}
	if e.cfg.partitioner != partManual {
		r.Partition = int32(e.hashes[r.Topic].Partition(r, n))
	}
	if r.Partition < 0 || int(r.Partition) >= n {
		return doris.Permanent(fmt.Errorf("partition %d of topic %s does not exist: the topic has %d partitions", r.Partition, r.Topic, n))
	}
	return nil
}

// loadTails reads this writer's committed tail of each partition not
// written yet.
func (e *exactlyOnce) loadTails(ctx context.Context, recs []record) error {
	var missing []topicPartition
	seen := map[topicPartition]bool{}
	for _, r := range recs {
		tp := topicPartition{r.rec.Topic, r.rec.Partition}
		if _, ok := e.tails[tp]; !ok && !seen[tp] {
			seen[tp] = true
			missing = append(missing, tp)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	ends, err := e.waitStable(ctx, missing)
	if err != nil {
		return fmt.Errorf("exactly_once: %w", err)
	}
	got, err := readTails(ctx, e.cfg, e.cl, missing, ends)
	for tp, t := range got {
		e.tails[tp] = t
		if t.pos != nil {
			e.log.Debugf("kafka_franz: %s holds the changes of transactional_id %q up to tso %d, %s lsn %d (offset %d)", tp, e.cfg.txnID, t.pos.TSO, t.pos.Table, t.pos.LSN, t.offset)
		} else {
			e.log.Debugf("kafka_franz: %s holds no change of transactional_id %q", tp, e.cfg.txnID)
		}
	}
	if err != nil {
		return fmt.Errorf("exactly_once: %w", err)
	}
	return nil
}

// filter keeps the records whose position is after their partition's
// tail, each delete's tombstone (delete_tombstones) right after it, and
// returns the tails they leave behind and how many messages it dropped.
func (e *exactlyOnce) filter(recs []record) ([]*kgo.Record, map[topicPartition]tail, int) {
	next := map[topicPartition]tail{}
	keep := make([]*kgo.Record, 0, len(recs))
	dropped := 0
	for _, r := range recs {
		tp := topicPartition{r.rec.Topic, r.rec.Partition}
		t, ok := next[tp]
		if !ok {
			t = e.tails[tp]
		}
		// An empty body is a null value: the tombstone of a pipeline that
		// makes its own stands after its delete, as delete_tombstones' does.
		if r.pos == nil || t.before(*r.pos, r.mark, r.rec.Value == nil) {
			keep = append(keep, r.rec)
			if r.pos != nil {
				t = tail{pos: r.pos, null: r.rec.Value == nil, mark: r.mark}
			} else {
				t.stamp(r.rec)
			}
		} else {
			dropped++
		}
		if r.tomb != nil {
			// The partition was picked for the delete; its tombstone goes
			// with it.
			r.tomb.Partition = r.rec.Partition
			if r.pos == nil || t.before(*r.pos, r.mark, true) {
				keep = append(keep, r.tomb)
				if r.pos != nil {
					t = tail{pos: r.pos, null: true}
				} else {
					t.stamp(r.tomb)
				}
			}
		}
		next[tp] = t
	}
	return keep, next, dropped
}

// transact writes recs in one transaction and commits it, aborting it on
// any error.
func (e *exactlyOnce) transact(ctx context.Context, recs []*kgo.Record) error {
	if err := e.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("beginning a transaction of %q: %w", e.cfg.txnID, err)
	}
	if err := produce(ctx, e.cl, recs); err != nil {
		e.m.aborted.Incr(1)
		return errors.Join(err, e.abort(err))
	}
	if err := e.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		e.m.aborted.Incr(1)
		err = fmt.Errorf("committing the transaction of %q: %w", e.cfg.txnID, err)
		return errors.Join(err, e.abort(err))
	}
	return nil
}

// abort ends the open transaction without committing it, on a context of
// its own since the batch's may be what ran out. A fenced producer's
// transaction was aborted by the producer that fenced it; aborting it here
// would have franz-go recover the producer id, bumping the epoch and
// fencing that producer in turn.
func (e *exactlyOnce) abort(cause error) error {
	if fenced(cause) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.timeout)
	defer cancel()
	if err := e.cl.AbortBufferedRecords(ctx); err != nil {
		return fmt.Errorf("aborting the buffered records of %q: %w", e.cfg.txnID, err)
	}
	if err := e.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		return fmt.Errorf("aborting the transaction of %q: %w", e.cfg.txnID, err)
	}
	return nil
}
