package input

import (
	"context"
	"sync"
	"sync/atomic"

	jcp "github.com/Jeffail/checkpoint"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// generation is one run of the producer, from a committed checkpoint until it
// ends, fails or is rewound by a nack. Acks of an old generation never move
// the checkpoint of a newer one.
type generation struct {
	conn    *conn
	ctx     context.Context
	cancel  context.CancelCauseFunc
	out     chan readyBatch
	done    chan struct{}
	err     error // why the producer stopped; read after done is closed
	tracker *jcp.Capped[checkpoint.State]
	stale   atomic.Bool

	// serial counts the batches still to be sent one at a time. A generation
	// that follows a nack starts this way, so that no batch of it is already
	// in flight when the output fails again; otherwise an output that fails
	// in a fixed rhythm could meet the same batch every time.
	serial int

	// unacked counts batches handed out whose ack has not finished: the
	// tracker slot resolves before the checkpoint is saved, so waits go by
	// this, not by the tracker. acked is signalled after every decrement.
	unacked atomic.Int64
	acked   chan struct{}
}

type readyBatch struct {
	batch service.MessageBatch
	ack   service.AckFunc
}

// serialBatchesAfterRewind is how many batches a generation that follows a
// nack sends one at a time.
const serialBatchesAfterRewind = 8

func (r *reader) startGeneration(c *conn, p *plan, afterRewind bool) *generation {
	ctx, cancel := context.WithCancelCause(context.Background())
	g := &generation{
		conn:    c,
		ctx:     ctx,
		cancel:  cancel,
		out:     make(chan readyBatch),
		done:    make(chan struct{}),
		tracker: jcp.NewCapped[checkpoint.State](int64(r.conf.CheckpointLimit)),
		acked:   make(chan struct{}, 1),
	}
	if afterRewind {
		g.serial = serialBatchesAfterRewind
	}
	go func() {
		defer close(g.done)
		defer close(g.out)
		g.err = r.produce(g, p)
		if cause := context.Cause(g.ctx); cause != nil && g.err != nil {
			g.err = cause
		}
	}()
	return g
}

func (g *generation) stopProducer() {
	g.cancel(context.Canceled)
	<-g.done
}

// waitUnacked blocks until the ack of every handed-out batch has finished,
// its checkpoint saved, or the generation was rewound, or ctx ends. A
// graceful shutdown waits here so that it keeps the position of everything
// that was delivered.
func (g *generation) waitUnacked(ctx context.Context) error {
	for g.unacked.Load() > 0 && !g.stale.Load() {
		select {
		case <-g.acked:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// emit registers msgs (possibly none) in the tracker under the state that
// becomes durable once they and everything before them are delivered, then
// hands them to ReadBatch. A full tracker blocks here: that is the
// checkpoint_limit back-pressure.
func (r *reader) emit(g *generation, batcher *service.Batcher, msgs []*service.Message, st checkpoint.State) error {
	if err := g.waitSerialTurn(len(msgs)); err != nil {
		return err
	}
	resolve, err := g.tracker.Track(g.ctx, st, int64(len(msgs)))
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		// Nothing to deliver: the slot is done at once, but its state waits
		// for every earlier slot.
		return r.commit(g.ctx, g, resolve())
	}
	batch, err := r.applyBatchProcessors(g.ctx, batcher, msgs)
	if err != nil {
		return err
	}
	if len(batch) == 0 {
		return r.commit(g.ctx, g, resolve()) // the processors dropped every row
	}
	// Benthos calls an AckFunc at least once; only the first call counts.
	var once sync.Once
	ack := func(ctx context.Context, err error) (ackErr error) {
		once.Do(func() {
			defer g.ackFinished()
			if err != nil {
				r.rewind(g)
				return
			}
			ackErr = r.commit(ctx, g, resolve())
		})
		return ackErr
	}
	g.unacked.Add(1)
	select {
	case g.out <- readyBatch{batch: batch, ack: ack}:
		return nil
	case <-g.ctx.Done():
		g.ackFinished()
		return context.Cause(g.ctx)
	}
}

// waitSerialTurn holds a batch back while the generation sends one batch at
// a time and another is still unacked.
func (g *generation) waitSerialTurn(n int) error {
	if g.serial == 0 || n == 0 {
		return nil
	}
	g.serial--
	return g.waitUnacked(g.ctx)
}

// ackFinished counts a batch out and wakes whoever waits for acks.
func (g *generation) ackFinished() {
	g.unacked.Add(-1)
	select {
	case g.acked <- struct{}{}:
	default:
	}
}

func (r *reader) applyBatchProcessors(ctx context.Context, b *service.Batcher, msgs []*service.Message) (service.MessageBatch, error) {
	if b == nil || len(msgs) == 0 {
		return msgs, nil
	}
	for _, m := range msgs {
		b.Add(m)
	}
	return b.Flush(ctx)
}

// rewind applies the auto_replay_nacks: false rule: the rejected batch never
// resolves, so the checkpoint cannot pass it, and the producer restarts from
// the last committed checkpoint.
func (r *reader) rewind(g *generation) {
	if g.stale.Swap(true) {
		return
	}
	g.cancel(errRewind)
}

// commit persists st when it is newer than what is committed. Acks call it
// before returning, so an acked message is never read again after a crash.
func (r *reader) commit(ctx context.Context, g *generation, st *checkpoint.State) error {
	if st == nil || g.stale.Load() {
		return nil
	}
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	if r.committed != nil && sameState(r.committed, st) {
		return nil
	}
	if err := r.persistLocked(ctx, st); err != nil {
		return err
	}
	r.m.committed(st)
	if r.pub != nil && st.Phase == phaseBinlog {
		r.pub.offer(st.WindowStart)
	}
	return nil
}

// persistLocked saves st to the checkpoint cache (when there is one) and
// makes it the committed state; commitMu is held.
func (r *reader) persistLocked(ctx context.Context, st *checkpoint.State) error {
	if r.store != nil {
		cp := *st // Save stamps Seq and SavedAt on its argument
		if err := r.store.Save(ctx, &cp); err != nil {
			return err
		}
	}
	r.committed = st
	return nil
}

func sameState(a, b *checkpoint.State) bool {
	if a.Phase != b.Phase || a.WindowStart != b.WindowStart || a.WindowEnd != b.WindowEnd ||
		len(a.DoneTablets) != len(b.DoneTablets) || a.StreamStart != b.StreamStart {
		return false
	}
	if (a.Last == nil) != (b.Last == nil) {
		return false
	}
	return a.Last == nil || *a.Last == *b.Last
}

// lastCommitted returns the state a new generation starts from.
func (r *reader) lastCommitted() *checkpoint.State {
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	return r.committed
}
