package output

import (
	"context"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// inOrderBackoff is the wait between in-place retries of a batch of change
// events, 1s doubling to 30s; not jittered, since the log line says how
// long it waits.
var inOrderBackoff = doris.BackoffPolicy{Base: time.Second, Max: 30 * time.Second, NoJitter: true}

// WriteBatch loads each target's share of the batch, then (two_phase_commit)
// commits them all. What was loaded stays loaded under its label, so a retry
// skips it. A failed batch of change events is retried here, in place: if it
// went back to Benthos, later batches would be loaded before it and an
// older change could overwrite a newer one.
func (o *dorisLoad) WriteBatch(ctx context.Context, batch service.MessageBatch) error {
	parts, err := o.split(batch)
	if err != nil {
		return err
	}
	inOrder := false
	for _, p := range parts {
		inOrder = inOrder || (p.cdc && o.conf.retryInOrder)
	}
	for attempt := 1; ; attempt++ {
		err := o.writeParts(ctx, batch, parts)
		// A batch that fails the same way on every attempt (a delete into a
		// DUPLICATE KEY table, a message that is not a JSON object) is
		// marked permanent: retrying it here would only hide it.
		if err == nil || !inOrder || doris.IsPermanent(err) || ctx.Err() != nil {
			return err
		}
		wait := o.inOrder.Wait(attempt)
		o.log.Errorf("doris_load: attempt %d: %v; retrying in %s so that later changes do not overtake this batch", attempt, err, wait)
		if serr := doris.Sleep(ctx, wait); serr != nil {
			return err
		}
	}
}

// writeParts loads the parts not yet in Doris. Labels stay with their parts
// across the attempts of this call, which are known to carry the same rows;
// a batch handed back to Benthos takes them with it. Benthos may never
// deliver that batch again (a fallback output, a dropped message), and a
// later batch with equal rows must not find its rows already "loaded" under
// a kept label, so the next call labels afresh.
func (o *dorisLoad) writeParts(ctx context.Context, batch service.MessageBatch, parts []*part) error {
	if err := o.prepare(ctx, batch, parts); err != nil {
		return err
	}
	done := make([]*loaded, 0, len(parts))
	for _, p := range parts {
		if p.rows == 0 || p.loaded {
			continue
		}
		l, err := o.loadPart(ctx, p)
		if err != nil {
			return o.abortAll(done, err)
		}
		done = append(done, l)
		p.loaded = !l.precommitted
	}
	for i, l := range done {
		if !l.precommitted {
			continue
		}
		if err := o.finishTxn(ctx, l, txnCommit); err != nil {
			// done[i] is in doubt: aborting a committed txn only fails.
			return o.abortAll(done[i:], err)
		}
		l.part.loaded = true
	}
	return nil
}

// prepare encodes and labels the parts that are not yet.
func (o *dorisLoad) prepare(ctx context.Context, batch service.MessageBatch, parts []*part) error {
	var err error
	for _, p := range parts {
		if p.ready {
			continue
		}
		if o.needsModel(p) && p.model == "" {
			if p.model, err = o.tableModel(ctx, p); err != nil {
				return err
			}
		}
		if err := o.encode(batch, p); err != nil {
			return doris.Permanent(err)
		}
		o.assignLabel(p)
		p.ready = true
	}
	return nil
}
