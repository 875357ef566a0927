package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"
)

func init() {
	if err := Register(service.GlobalEnvironment()); err != nil {
		panic(err)
	}
}

// Register adds the kafka_franz output to env.
func Register(env *service.Environment) error {
	return env.RegisterBatchOutput(Name, Spec(), func(pc *service.ParsedConfig, mgr *service.Resources) (service.BatchOutput, service.BatchPolicy, int, error) {
		c, err := parseConfig(pc)
		if err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		pol, err := pc.FieldBatchPolicy(fieldBatching)
		if err != nil {
			return nil, service.BatchPolicy{}, 0, fmt.Errorf("field %s: %w", fieldBatching, err)
		}
		mif, err := pc.FieldMaxInFlight()
		if err != nil {
			return nil, service.BatchPolicy{}, 0, fmt.Errorf("field %s: %w", fieldMaxInFlight, err)
		}
		return &output{cfg: c, log: mgr.Logger(), m: newTxnMetrics(mgr.Metrics())}, pol, mif, nil
	})
}

// output writes batches; with exactly_once, one transaction per batch.
type output struct {
	cfg *config
	log *service.Logger
	m   *txnMetrics

	mu sync.Mutex
	cl *kgo.Client
	eo *exactlyOnce // nil unless exactly_once
}

func (o *output) Connect(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cl != nil {
		return nil
	}
	cl, err := kgo.NewClient(o.cfg.producerOpts()...)
	if err != nil {
		return fmt.Errorf("kafka client for %v: %w", o.cfg.seeds, err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.timeout)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		return fmt.Errorf("connecting to %v: %w", o.cfg.seeds, err)
	}
	if o.cfg.exactlyOnce {
		// InitProducerID bumps the epoch of transactional_id, which
		// fences any older producer with the same id and aborts its open
		// transaction, before any partition's tail is read.
		if _, _, err := cl.ProducerID(ctx); err != nil {
			cl.Close()
			return fmt.Errorf("initialising transactional_id %q on %v: %w", o.cfg.txnID, o.cfg.seeds, err)
		}
		o.eo = newExactlyOnce(o.cfg, cl, o.log, o.m)
	}
	o.cl = cl
	return nil
}

func (o *output) WriteBatch(ctx context.Context, batch service.MessageBatch) error {
	o.mu.Lock()
	cl, eo := o.cl, o.eo
	o.mu.Unlock()
	if cl == nil {
		return service.ErrNotConnected
	}
	if eo != nil {
		err := eo.write(ctx, batch)
		var te *txnError
		if errors.As(err, &te) {
			o.log.Errorf("kafka_franz: %v; reconnecting to write the batch again", err)
			o.reset(cl)
			return service.ErrNotConnected
		}
		return err
	}
	recs := make([]record, len(batch))
	b := o.cfg.builder(batch)
	for i := range batch {
		r, err := b.toRecord(i, false)
		if err != nil {
			return err
		}
		recs[i] = r
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.timeout)
	defer cancel()
	return produce(ctx, cl, kafkaRecords(recs))
}

// produce writes recs and waits for every one of them.
func produce(ctx context.Context, cl *kgo.Client, recs []*kgo.Record) error {
	var errs []error
	for _, res := range cl.ProduceSync(ctx, recs...) {
		if res.Err != nil {
			errs = append(errs, fmt.Errorf("writing to %s/%d: %w", res.Record.Topic, res.Record.Partition, res.Err))
			if len(errs) == 3 {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// reset drops cl, when it is still the client, so that Connect starts a
// new producer.
func (o *output) reset(cl *kgo.Client) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cl == cl {
		o.cl.Close()
		o.cl, o.eo = nil, nil
	}
}

func (o *output) Close(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cl != nil {
		o.cl.Close()
		o.cl, o.eo = nil, nil
	}
	return nil
}
