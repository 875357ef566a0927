package input

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// reader is the doris_binlog BatchInput. Connect starts a run: a coordinator
// of per-table phases that reads Doris and emits batches through delivery;
// ReadBatch hands them over, and their acks move the checkpoint.
type reader struct {
	conf    *Config
	pol     service.BatchPolicy
	maxRows int // rows per emitted batch: batch_size, or a smaller batching.count
	mgr     *service.Resources
	log     *service.Logger
	m       *metrics
	store   *checkpoint.Store // nil when no checkpoint_cache is configured
	del     *delivery.Delivery[*checkpoint.State]
	pub     *offsetPublisher
	planned windowplan.Ends
	// saveHealth follows failing checkpoint saves.
	saveHealth saveHealth
	// feZone is the FE's time_zone as of the last connect, in which the
	// offset table's offset_timestamp is written.
	feZone atomic.Pointer[doris.FEZone]

	mu      sync.Mutex
	run     *delivery.Run[*checkpoint.State]
	conn    *conn
	fatal   error // sticky: a condition a reconnect cannot fix
	rewound bool  // the last run ended with a nack
}

func newReader(conf *Config, pol service.BatchPolicy, mgr *service.Resources) (*reader, error) {
	maxRows := conf.BatchSize
	if pol.Count > 0 && pol.Count < maxRows {
		maxRows = pol.Count
	}
	r := &reader{conf: conf, pol: pol, maxRows: maxRows, mgr: mgr, log: mgr.Logger(), m: newMetrics(mgr.Metrics())}
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
	del, err := delivery.New(delivery.Options[*checkpoint.State]{
		Limit:    conf.CheckpointLimit,
		Save:     r.save,
		Equal:    checkpoint.Equal,
		OnCommit: r.committed,
		Stop:     isFatal,
	})
	if err != nil {
		return nil, err
	}
	r.del = del
	return r, nil
}

// save writes a position to the checkpoint cache, when there is one.
func (r *reader) save(ctx context.Context, st *checkpoint.State) error {
	if r.store == nil {
		return nil
	}
	cp := *r.planned.Attach(st) // a copy: Save stamps Seq and SavedAt on it
	return r.checkSave(r.store.Save(ctx, &cp))
}

// startup is the start-up of a run on c.
func (r *reader) startup(c *conn, cat *catalog) *startup {
	return &startup{
		conf: r.conf, log: r.log, mgr: r.mgr, store: r.store, del: r.del, planned: &r.planned, c: c, cat: cat,
		save: func(ctx context.Context, st *checkpoint.State) error { return r.checkSave(r.store.Save(ctx, st)) },
	}
}

// runEnv is what a run on c takes from the input.
func (r *reader) runEnv(c *conn) runEnv {
	return runEnv{
		conf: r.conf, log: r.log, m: r.m, c: c, clock: c, planned: &r.planned, resave: r.del.Resave, maxRows: r.maxRows,
		newBatcher: func() (*service.Batcher, error) {
			if r.pol.IsNoop() {
				return nil, nil
			}
			return r.pol.NewBatcher(r.mgr)
		},
	}
}

func (r *reader) committed(st *checkpoint.State) {
	r.m.committed(st)
	if r.pub == nil || st.Stream == nil {
		return
	}
	// offset_timestamp is FE time, so that it can be copied into
	// scan_timestamp; the bound itself is UTC.
	if !st.Stream.Start.IsZero() {
		if z := r.feZone.Load(); z != nil {
			r.pub.offer(z.Format(windowplan.BoundOf(st.Stream.Start).Ms()))
		}
	}
}

// Connect starts reading from the committed checkpoint, or from scan_mode when
// there is none. It is a no-op while a run is going on.
func (r *reader) Connect(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fatal != nil {
		return r.fatal
	}
	if r.run != nil {
		return nil
	}
	c, err := openConn(ctx, r.conf, r.log)
	if err != nil {
		return err
	}
	r.feZone.Store(&c.zone)
	cat := &catalog{conf: r.conf, c: c, m: r.m, log: r.log}
	sp, err := r.startup(c, cat).run(ctx)
	if err != nil {
		c.close()
		return r.noteFatal(err)
	}
	co := newCoordinator(r.runEnv(c), sp, cat)
	r.run = r.del.Start(r.rewound, co.produce)
	r.conn = c
	r.rewound = false
	return nil
}

// ReadBatch hands over the next batch the run made.
func (r *reader) ReadBatch(ctx context.Context) (service.MessageBatch, service.AckFunc, error) {
	r.mu.Lock()
	run := r.run
	r.mu.Unlock()
	if run == nil {
		return nil, nil, service.ErrNotConnected
	}
	batch, ack, ok, err := run.Next(ctx)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		return batch, ack, nil
	}
	return nil, nil, r.endRun(run)
}

// endRun turns the reason a run stopped into ReadBatch's answer.
func (r *reader) endRun(run *delivery.Run[*checkpoint.State]) error {
	err := run.Err()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.run == run {
		r.run = nil
		r.conn.close()
	}
	switch {
	case err == nil:
		return service.ErrEndOfInput
	case errors.Is(err, delivery.ErrRewind):
		r.log.Warnf("A batch was rejected by the output and auto_replay_nacks is false: re-reading from the last committed checkpoint")
		r.rewound = true
		return service.ErrNotConnected
	case errors.Is(err, context.Canceled):
		return service.ErrNotConnected
	}
	// A permanent error stops the input too: reconnecting would read the
	// same rows again (ones the merge could not convert, say) for ever.
	if doris.IsPermanent(r.noteFatal(err)) {
		return err
	}
	r.log.Warnf("Reading stopped, reconnecting: %v", err)
	return service.ErrNotConnected
}

// noteFatal records errors that no reconnect can fix, so that Benthos keeps
// reporting them instead of reading on.
func (r *reader) noteFatal(err error) error {
	if doris.IsPermanent(err) {
		r.fatal = err
		r.log.Errorf("%v", err)
	}
	return err
}

// Close stops the run, waits (bounded by ctx) for in-flight batches to be
// acked so that their checkpoint is saved, then releases connections.
func (r *reader) Close(ctx context.Context) error {
	r.mu.Lock()
	run, c := r.run, r.conn
	r.run = nil
	r.mu.Unlock()
	if run != nil {
		run.Stop()
		// Benthos closes an input once the acks of everything it handed on
		// have returned (and each ack saves before it returns), so what is
		// still unacked here was read but dropped at shutdown and will be
		// read again. The short wait only covers a caller that did not wait.
		wctx, cancel := context.WithTimeout(ctx, closeAckWait)
		if err := run.WaitUnacked(wctx); err != nil {
			r.log.Debugf("Closing with batches never acknowledged (dropped at shutdown); they are read again after a restart")
		}
		cancel()
		c.close()
	}
	if r.pub != nil {
		r.pub.close()
	}
	return nil
}

// closeAckWait bounds how long Close waits for acks.
const closeAckWait = time.Second

// fatalf is an error that stops the run as it is, its text already telling
// the operator what happened and what to do (windowplan.StopError: the
// retry rule stops the run with the same type, so isFatal tells all).
func fatalf(format string, args ...any) error { return windowplan.Stopf(format, args...) }

func isFatal(err error) bool { return windowplan.IsStop(err) }
