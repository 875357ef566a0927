package input

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// errRewind stops a generation after a nack so that the next one starts again
// from the last committed checkpoint.
var errRewind = errors.New("rewinding to the last committed checkpoint after a nack")

// reader is the doris_binlog BatchInput. Connect starts a generation: a
// producer goroutine that reads Doris and hands ready batches to ReadBatch.
// Acks resolve slots in an ordered tracker and persist the highest position
// that has every earlier message delivered.
type reader struct {
	conf    *Config
	pol     service.BatchPolicy
	polNoop bool
	maxRows int // rows per emitted batch: batch_size, or a smaller batching.count
	mgr     *service.Resources
	log     *service.Logger
	m       *metrics
	store   *checkpoint.Store // nil when no checkpoint_cache is configured

	mu      sync.Mutex
	gen     *generation
	fatal   error // sticky: a condition a reconnect cannot fix
	rewound bool  // the last generation ended with a nack
	pub     *offsetPublisher

	commitMu  sync.Mutex
	committed *checkpoint.State // highest state persisted (or, without a cache, delivered)
}

func newReader(conf *Config, pol service.BatchPolicy, mgr *service.Resources) (*reader, error) {
	maxRows := conf.BatchSize
	if pol.Count > 0 && pol.Count < maxRows {
		maxRows = pol.Count
	}
	r := &reader{
		conf:    conf,
		pol:     pol,
		polNoop: pol.IsNoop(),
		maxRows: maxRows,
		mgr:     mgr,
		log:     mgr.Logger().With("table", conf.DB+"."+conf.Table),
		m:       newMetrics(mgr.Metrics()),
	}
	if conf.CheckpointCache != "" {
		r.store = checkpoint.NewStore(mgr, conf.CheckpointCache, conf.CheckpointKey)
	}
	if conf.OffsetTable != "" {
		pub, err := newOffsetPublisher(conf, r.log)
		if err != nil {
			return nil, err
		}
		r.pub = pub
	}
	return r, nil
}

// Connect starts reading from the committed checkpoint, or from scan_mode when
// there is none. It is a no-op while a generation is running.
func (r *reader) Connect(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fatal != nil {
		return r.fatal
	}
	if r.gen != nil {
		return nil
	}
	c, err := openConn(ctx, r.conf, r.log)
	if err != nil {
		return err
	}
	p, err := r.plan(ctx, c)
	if err != nil {
		c.close()
		return r.noteFatal(err)
	}
	r.gen = r.startGeneration(c, p, r.rewound)
	r.rewound = false
	return nil
}

// ReadBatch hands over the next batch the producer made.
func (r *reader) ReadBatch(ctx context.Context) (service.MessageBatch, service.AckFunc, error) {
	r.mu.Lock()
	g := r.gen
	r.mu.Unlock()
	if g == nil {
		return nil, nil, service.ErrNotConnected
	}
	select {
	case rb, open := <-g.out:
		if open {
			return rb.batch, rb.ack, nil
		}
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return nil, nil, r.endGeneration(g)
}

// endGeneration turns the reason a producer stopped into ReadBatch's answer.
func (r *reader) endGeneration(g *generation) error {
	<-g.done
	r.mu.Lock()
	if r.gen == g {
		r.gen = nil
	}
	r.mu.Unlock()
	g.conn.close()
	switch {
	case g.err == nil:
		return service.ErrEndOfInput
	case errors.Is(g.err, errRewind):
		r.log.Warnf("A batch was rejected by the output and auto_replay_nacks is false: re-reading from the last committed checkpoint")
		r.mu.Lock()
		r.rewound = true
		r.mu.Unlock()
		return service.ErrNotConnected
	case errors.Is(g.err, context.Canceled):
		return service.ErrNotConnected
	default:
		r.mu.Lock()
		err := r.noteFatalLocked(g.err)
		r.mu.Unlock()
		return err
	}
}

// noteFatal records errors that no reconnect can fix, so that Benthos keeps
// reporting them instead of reading on.
func (r *reader) noteFatal(err error) error {
	var fe *fatalError
	if errors.As(err, &fe) {
		r.fatal = err
		r.log.Errorf("%v", err)
	}
	return err
}

func (r *reader) noteFatalLocked(err error) error {
	r.noteFatal(err)
	var fe *fatalError
	if errors.As(err, &fe) {
		return err
	}
	r.log.Warnf("Reading stopped, reconnecting: %v", err)
	return service.ErrNotConnected
}

// Close stops the producer, waits (bounded by ctx) for in-flight batches to be
// acked so that their checkpoint is saved, then releases connections.
func (r *reader) Close(ctx context.Context) error {
	r.mu.Lock()
	g := r.gen
	r.gen = nil
	r.mu.Unlock()
	if g != nil {
		g.stopProducer()
		_ = g.waitUnacked(ctx) // bounded by Benthos's shutdown deadline
		g.conn.close()
	}
	if r.pub != nil {
		r.pub.close()
	}
	return nil
}

// fatalError marks a condition that stops the input until an operator acts.
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

func fatalf(format string, args ...any) error {
	return &fatalError{msg: fmt.Sprintf(format, args...)}
}

// waitFor sleeps for d unless ctx ends first.
func waitFor(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
