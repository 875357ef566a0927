package delivery

import (
	"context"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// nackLogger sits outside Benthos's auto-replay wrapper, which retries a
// rejected batch without telling the input, so that output rejections are
// still reported: once at warn level, then at most once a minute with a
// count while they go on.
type nackLogger struct {
	service.BatchInput
	log *service.Logger

	mu       sync.Mutex
	lastWarn time.Time
	unwarned int
}

// WithNackLogging wraps an input whose nacks Benthos replays itself.
func WithNackLogging(in service.BatchInput, log *service.Logger) service.BatchInput {
	return &nackLogger{BatchInput: in, log: log}
}

func (n *nackLogger) ReadBatch(ctx context.Context) (service.MessageBatch, service.AckFunc, error) {
	batch, ack, err := n.BatchInput.ReadBatch(ctx)
	if err != nil || ack == nil {
		return batch, ack, err
	}
	size := len(batch)
	return batch, func(ctx context.Context, err error) error {
		if err != nil {
			n.noteNack(size, err)
		}
		return ack(ctx, err)
	}, nil
}

func (n *nackLogger) noteNack(size int, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unwarned++
	if time.Since(n.lastWarn) < time.Minute {
		return
	}
	if n.unwarned == 1 {
		n.log.Warnf("The output rejected a batch of %d messages (%v); it is retried, and the checkpoint waits for it", size, err)
	} else {
		n.log.Warnf("The output rejected %d batches since the last report, the latest of %d messages (%v); they are retried, and the checkpoint waits for them", n.unwarned, size, err)
	}
	n.lastWarn, n.unwarned = time.Now(), 0
}

// ConnectionTest forwards to the wrapped input, as Benthos's own wrappers
// do, so that wrapping does not hide the input's connection test.
func (n *nackLogger) ConnectionTest(ctx context.Context) service.ConnectionTestResults {
	t, ok := n.BatchInput.(service.ConnectionTestable)
	if !ok {
		return service.ConnectionTestNotSupported().AsList()
	}
	return t.ConnectionTest(ctx)
}
