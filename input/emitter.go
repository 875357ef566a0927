package input

import (
	"context"
	"sync"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
)

// emitter is the one door to delivery for a run's readers (snapshot workers
// of several tables, the window chain). It keeps the position of everything
// emitted so far, applies each batch's change to it and registers the batch
// under a copy. Emission is serialized, so the position at any slot covers
// every earlier slot, which is what the tracker needs when it commits the
// highest contiguous one.
type emitter struct {
	mu       sync.Mutex
	run      batchSink
	batcher  *service.Batcher // the batching policy's processors, or nil
	progress *checkpoint.State
}

// batchSink takes each batch with the position it makes: a delivery.Run.
type batchSink interface {
	Emit(batch service.MessageBatch, st *checkpoint.State) error
}

var _ batchSink = (*delivery.Run[*checkpoint.State])(nil)

// emit hands msgs (possibly none) to delivery under the position that
// change makes of the emitted one.
func (e *emitter) emit(ctx context.Context, msgs []*service.Message, change func(*checkpoint.State)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	change(e.progress)
	batch, err := e.process(ctx, msgs)
	if err != nil {
		return err
	}
	return e.run.Emit(batch, e.progress.Clone())
}

func (e *emitter) process(ctx context.Context, msgs []*service.Message) (service.MessageBatch, error) {
	if e.batcher == nil || len(msgs) == 0 {
		return msgs, nil
	}
	for _, m := range msgs {
		e.batcher.Add(m)
	}
	return e.batcher.Flush(ctx)
}

// view runs f on the emitted position; f must not keep it.
func (e *emitter) view(f func(*checkpoint.State)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f(e.progress)
}
