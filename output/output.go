// Package output implements the doris_load output: Stream Load into Apache
// Doris tables, with change events applied as upserts and deletes and labels
// derived from source positions so that replays load nothing twice.
// Importing the package registers the output with the global Benthos
// environment.
package output

import (
	"context"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

const outputName = "doris_load"

func init() {
	service.MustRegisterBatchOutput(outputName, Spec(), newOutput)
}

func newOutput(pc *service.ParsedConfig, mgr *service.Resources) (service.BatchOutput, service.BatchPolicy, int, error) {
	var pol service.BatchPolicy
	conf, err := parseConfig(pc)
	if err != nil {
		return nil, pol, 0, err
	}
	if pol, err = pc.FieldBatchPolicy(fieldBatching); err != nil {
		return nil, pol, 0, err
	}
	maxInFlight, err := pc.FieldMaxInFlight()
	if err != nil {
		return nil, pol, 0, err
	}
	o, err := newDorisLoad(conf, mgr.Logger())
	if err != nil {
		return nil, pol, 0, err
	}
	return o, pol, maxInFlight, nil
}

// dorisLoad is the output. It is safe for concurrent WriteBatch calls.
type dorisLoad struct {
	conf   *config
	ld     *loader
	models *keyModels
	create *creator // nil unless create_tables is enabled
	// targets knows each target's columns, for the schema check.
	targets *targetSchemas
	log     *service.Logger

	inOrder doris.BackoffPolicy // between in-place retries of a batch
}

func newDorisLoad(conf *config, log *service.Logger) (*dorisLoad, error) {
	warnPlaintextRedirects(conf, log)
	cc := doris.ClientConfig{
		FENodes: conf.conn.FENodes, Username: conf.conn.Username, Password: conf.conn.Password,
		TLS: conf.conn.TLS, Retries: conf.retries, ConnectTimeout: conf.connectTimeout,
		ReadTimeout: conf.readTimeout, Logger: log,
	}
	lookups := cc
	lookups.ReadTimeout = conf.connectTimeout
	fe, err := doris.NewClient(lookups)
	if err != nil {
		return nil, err
	}
	tr := newTransport(transportConfig{ClientConfig: cc, LoadLimit: conf.loadLimit(), AllowPlaintextRedirects: conf.allowPlainHop})
	var create *creator
	if conf.create.enabled {
		// DDL answers only once done, so it gets the read timeout.
		if create, err = newCreatorClient(cc, conf.create, log); err != nil {
			return nil, err
		}
	}
	targets := newTargetSchemas(fe)
	if create != nil && checksSchemas(conf) {
		create.targets = targets
	}
	return &dorisLoad{
		create:  create,
		conf:    conf,
		ld:      &loader{conf: conf, tr: tr, log: log},
		models:  newKeyModels(fe),
		targets: targets,
		log:     log,
		inOrder: inOrderBackoff,
	}, nil
}

// Connect has nothing to open: every load is its own HTTP exchange.
func (o *dorisLoad) Connect(context.Context) error { return nil }

func (o *dorisLoad) Close(context.Context) error {
	o.ld.tr.close()
	o.models.fe.Close()
	if o.create != nil {
		o.create.fe.Close()
	}
	return nil
}

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
	// A Stream Load commits per target table and batch, so a source
	// transaction's boundaries have nothing to bound here, and a marker
	// has no row to load.
	if batch = txmarkers.Drop(batch); len(batch) == 0 {
		return nil
	}
	parts, err := splitBatch(o.conf, batch)
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
		l, err := o.ld.load(ctx, p)
		if err != nil {
			return o.ld.abortAll(done, err)
		}
		done = append(done, l)
		p.loaded = !l.precommitted
	}
	for i, l := range done {
		if !l.precommitted {
			continue
		}
		if err := o.ld.finishTxn(ctx, l, txnCommit); err != nil {
			// done[i] is in doubt: aborting a committed txn only fails.
			return o.ld.abortAll(done[i:], err)
		}
		l.part.loaded = true
	}
	return nil
}

// prepare labels and encodes the parts that are not yet, after checking
// that their targets have every column of the messages' schemas.
func (o *dorisLoad) prepare(ctx context.Context, batch service.MessageBatch, parts []*part) error {
	var err error
	for _, p := range parts {
		if p.ready {
			continue
		}
		if o.create != nil {
			if err := o.create.ensure(ctx, batch, p); err != nil {
				return err
			}
		}
		if needsModel(o.conf, p) && p.model == "" {
			if p.model, err = o.models.of(ctx, p); err != nil {
				return err
			}
		}
		o.assignLabel(p)
		skip, err := o.checkSchemas(ctx, batch, p)
		if err != nil {
			return err
		}
		if skip {
			p.ready, p.loaded = true, true
			continue
		}
		if err := encodeBody(o.conf, batch, p); err != nil {
			return doris.Permanent(err)
		}
		p.ready = true
	}
	return nil
}

// assignLabel picks the part's label: derived from its positions and
// sources when every message has them, else random.
func (o *dorisLoad) assignLabel(p *part) {
	if !o.conf.labels() {
		return
	}
	if p.positioned {
		p.label = deterministicLabel(o.conf.labelPrefix, p.target, p.sources, p.first, p.last, len(p.msgs))
		return
	}
	p.label = randomLabel(o.conf.labelPrefix)
}
