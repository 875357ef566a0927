package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// retryBackoff is the wait between in-place attempts at one exactly_once
// batch: 200ms doubling to 10s, not jittered, since the log line says how
// long it waits.
var retryBackoff = doris.BackoffPolicy{Base: 200 * time.Millisecond, Max: 10 * time.Second, NoJitter: true}

// writeExactlyOnce writes batch until it is written, the stream stops or
// an error that trying again cannot fix turns up. A batch handed back to
// Benthos would come back after later batches were committed, and the tail
// check would then drop it as already written: so a transient failure is
// retried here, in place, and any failure handed back stops the output for
// good (see stop), so that no later batch is written before it.
func (o *output) writeExactlyOnce(ctx context.Context, eo *exactlyOnce, batch service.MessageBatch) error {
	for attempt := 1; ; attempt++ {
		err := eo.write(ctx, batch)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || errors.Is(err, errClosed) {
			return o.stop(fmt.Errorf("kafka_franz: stopping with a batch of %d messages not written (the input sends it again after a restart): %w", len(batch), err))
		}
		if fenced(err) {
			return o.stop(fmt.Errorf("kafka_franz: another instance took over transactional_id %q: the broker fenced this producer (%w). "+
				"This output stops instead of reconnecting, which would fence the other instance in turn; run one instance per transactional_id", o.cfg.txnID, err))
		}
		if doris.IsPermanent(err) || permanentKafka(err) {
			return o.stop(fmt.Errorf("kafka_franz: a batch of %d messages cannot be written under transactional_id %q, and writing it again cannot fix that: %w. "+
				"The output stops so that no later batch overtakes it; fix the cause and restart", len(batch), o.cfg.txnID, err))
		}
		wait := retryBackoff.Wait(attempt)
		o.m.retries.Incr(1)
		o.log.Warnf("kafka_franz: attempt %d at a batch of %d messages under transactional_id %q failed: %v; trying again in %s, in place, so that no later batch overtakes it",
			attempt, len(batch), o.cfg.txnID, err, wait)
		if serr := doris.Sleep(ctx, wait); serr != nil {
			return o.stop(fmt.Errorf("kafka_franz: stopping with a batch of %d messages not written (the input sends it again after a restart): %w", len(batch), err))
		}
	}
}

// stop makes err the answer to every later write and connect of an
// exactly_once output: the output writes nothing after a batch it handed
// back, the way the doris_binlog input stays stopped on a fatal error. The
// batch and those after it are sent again once the pipeline restarts.
func (o *output) stop(err error) error {
	err = doris.Permanent(err)
	o.mu.Lock()
	first := o.stopped == nil
	if first {
		o.stopped = err
	}
	err = o.stopped
	o.mu.Unlock()
	if first {
		o.log.Errorf("%v", err)
	}
	return err
}

// fenced reports whether the broker refused this producer's epoch: a newer
// producer with the same transactional id initialised since (or, rarely,
// the coordinator aborted a transaction that outlived its timeout, which
// the output keeps far above any write's).
func fenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}

// permanentKafka reports broker answers that the same batch gets again on
// every attempt.
func permanentKafka(err error) bool {
	for _, e := range []error{
		kerr.MessageTooLarge, kerr.RecordListTooLarge, kerr.InvalidRecord, kerr.InvalidTimestamp,
		kerr.InvalidTopicException, kerr.PolicyViolation,
		kerr.TopicAuthorizationFailed, kerr.TransactionalIDAuthorizationFailed, kerr.ClusterAuthorizationFailed,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
