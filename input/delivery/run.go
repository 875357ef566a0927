package delivery

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	jcp "github.com/Jeffail/checkpoint"
	"github.com/redpanda-data/benthos/v4/public/service"
)

// ErrRewind ends a run after a nack so that the next one starts again from
// the last committed position.
var ErrRewind = errors.New("rewinding to the last committed checkpoint after a nack")

// SerialBatchesAfterRewind is how many batches a run that follows a nack
// sends one at a time, so that no batch of it is already in flight when the
// output fails again; otherwise an output that fails in a fixed rhythm could
// meet the same batch every time.
const SerialBatchesAfterRewind = 8

// Run is one pass of a producer, from a committed position until it ends,
// fails or is rewound by a nack.
type Run[S any] struct {
	d       *Delivery[S]
	ctx     context.Context
	cancel  context.CancelCauseFunc
	out     chan ready
	done    chan struct{}
	err     error // why the producer stopped; read after done is closed
	tracker *jcp.Capped[S]
	stale   atomic.Bool
	serial  int
	// saveStopped is set when a failed save in an ack ended the run, so
	// that its error is the run's even if the producer returns nil.
	saveStopped atomic.Bool

	// unacked counts batches handed out whose ack has not finished: the
	// tracker slot resolves before the position is saved, so waits go by
	// this, not by the tracker. acked is signalled after every decrement.
	unacked atomic.Int64
	acked   chan struct{}
}

type ready struct {
	batch service.MessageBatch
	ack   service.AckFunc
}

// Start begins a run whose producer is produce; afterRewind makes its first
// batches go one at a time. The producer must stop when ctx ends.
func (d *Delivery[S]) Start(afterRewind bool, produce func(ctx context.Context, r *Run[S]) error) *Run[S] {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &Run[S]{
		d:       d,
		ctx:     ctx,
		cancel:  cancel,
		out:     make(chan ready),
		done:    make(chan struct{}),
		tracker: jcp.NewCapped[S](int64(d.opts.Limit)),
		acked:   make(chan struct{}, 1),
	}
	if afterRewind {
		r.serial = SerialBatchesAfterRewind
	}
	go func() {
		defer close(r.done)
		defer close(r.out)
		r.err = produce(ctx, r)
		if cause := context.Cause(ctx); cause != nil && (r.err != nil || r.saveStopped.Load()) {
			r.err = cause
		}
	}()
	return r
}

// Emit registers batch (possibly empty) under st, the position that becomes
// durable once the batch and everything emitted before it are acked, then
// hands it to Next. A full tracker blocks here: that is the checkpoint_limit
// back-pressure. Emit is not safe for concurrent use.
func (r *Run[S]) Emit(batch service.MessageBatch, st S) error {
	if err := r.waitSerialTurn(len(batch)); err != nil {
		return err
	}
	resolve, err := r.tracker.Track(r.ctx, st, int64(len(batch)))
	if err != nil {
		return err
	}
	if len(batch) == 0 {
		// Nothing to deliver: the slot is done at once, but its position
		// waits for every earlier slot.
		return r.d.commitResolved(r.ctx, resolve, r.stale.Load)
	}
	r.unacked.Add(1)
	select {
	case r.out <- ready{batch: batch, ack: r.ackFunc(resolve)}:
		return nil
	case <-r.ctx.Done():
		r.ackFinished()
		return context.Cause(r.ctx)
	}
}

// ackFunc commits on success and rewinds on a nack. Benthos calls an AckFunc
// at least once; only the first call counts.
func (r *Run[S]) ackFunc(resolve func() *S) service.AckFunc {
	var once sync.Once
	return func(ctx context.Context, err error) (ackErr error) {
		once.Do(func() {
			defer r.ackFinished()
			if err != nil {
				r.rewind()
				return
			}
			ackErr = r.d.commitResolved(ctx, resolve, r.stale.Load)
			if ackErr != nil && r.d.opts.Stop != nil && r.d.opts.Stop(ackErr) && !r.saveStopped.Swap(true) {
				r.cancel(ackErr)
			}
		})
		return ackErr
	}
}

// rewind applies the auto_replay_nacks: false rule: the rejected batch never
// resolves, so the position cannot pass it, and the producer stops.
func (r *Run[S]) rewind() {
	if r.stale.Swap(true) {
		return
	}
	r.cancel(ErrRewind)
}

// Next hands over the next batch. ok is false once the producer stopped;
// Err then says why.
func (r *Run[S]) Next(ctx context.Context) (service.MessageBatch, service.AckFunc, bool, error) {
	select {
	case rb, open := <-r.out:
		if !open {
			<-r.done
			return nil, nil, false, nil
		}
		return rb.batch, rb.ack, true, nil
	case <-ctx.Done():
		return nil, nil, false, ctx.Err()
	}
}

// Err is why the producer stopped; valid once Next reported the end.
func (r *Run[S]) Err() error {
	<-r.done
	return r.err
}

// Stop ends the producer and waits for it.
func (r *Run[S]) Stop() {
	r.cancel(context.Canceled)
	<-r.done
}

// WaitUnacked blocks until the ack of every handed-out batch has finished,
// its position saved, or the run was rewound, or ctx ends. A graceful
// shutdown waits here so that it keeps the position of everything that was
// delivered.
func (r *Run[S]) WaitUnacked(ctx context.Context) error {
	for r.unacked.Load() > 0 && !r.stale.Load() {
		select {
		case <-r.acked:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// Settle lets in-flight batches finish before a failed run ends, so that the
// next one starts after them instead of reading them again.
func (r *Run[S]) Settle(err error) error {
	if err == nil || errors.Is(err, ErrRewind) || r.ctx.Err() != nil {
		return err
	}
	_ = r.WaitUnacked(r.ctx)
	return err
}

// waitSerialTurn holds a batch back while the run sends one batch at a time
// and another is still unacked.
func (r *Run[S]) waitSerialTurn(n int) error {
	if r.serial == 0 || n == 0 {
		return nil
	}
	r.serial--
	return r.WaitUnacked(r.ctx)
}

// ackFinished counts a batch out and wakes whoever waits for acks.
func (r *Run[S]) ackFinished() {
	r.unacked.Add(-1)
	select {
	case r.acked <- struct{}{}:
	default:
	}
}
