package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
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
	cl *kgo.Client  // nil unless connected without exactly_once
	eo *exactlyOnce // nil unless connected with exactly_once
	// stopped, once set, answers every later write and connect of an
	// exactly_once output (see stop).
	stopped error
}

func (o *output) Connect(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped != nil {
		return o.stopped
	}
	if o.cl != nil || o.eo != nil {
		return nil
	}
	cl, err := o.dial(ctx)
	if err != nil {
		return err
	}
	if o.cfg.exactlyOnce {
		o.eo = newExactlyOnce(o.cfg, cl, o.dial, o.log, o.m)
		return nil
	}
	o.cl = cl
	return nil
}

// dial starts a client and checks that a broker answers; with
// exactly_once it initialises transactional_id, which bumps its epoch: that
// fences any older producer with the same id and aborts its open
// transaction, before any partition's tail is read.
func (o *output) dial(ctx context.Context) (*kgo.Client, error) {
	cl, err := kgo.NewClient(o.cfg.producerOpts()...)
	if err != nil {
		return nil, fmt.Errorf("kafka client for %v: %w", o.cfg.seeds, err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.timeout)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("connecting to %v: %w", o.cfg.seeds, err)
	}
	if o.cfg.exactlyOnce {
		if _, _, err := cl.ProducerID(ctx); err != nil {
			cl.Close()
			return nil, fmt.Errorf("initialising transactional_id %q on %v: %w", o.cfg.txnID, o.cfg.seeds, err)
		}
	}
	return cl, nil
}

func (o *output) WriteBatch(ctx context.Context, batch service.MessageBatch) error {
	if !o.cfg.markers {
		if batch = txmarkers.Drop(batch); len(batch) == 0 {
			return nil
		}
	}
	o.mu.Lock()
	cl, eo, stopped := o.cl, o.eo, o.stopped
	o.mu.Unlock()
	switch {
	case stopped != nil:
		return stopped
	case eo != nil:
		return o.writeExactlyOnce(ctx, eo, batch)
	case cl == nil:
		return service.ErrNotConnected
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

func (o *output) Close(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cl != nil {
		o.cl.Close()
		o.cl = nil
	}
	if o.eo != nil {
		o.eo.close()
		o.eo = nil
	}
	return nil
}
