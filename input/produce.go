package input

import (
	"errors"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// produce runs a generation's phases from its plan.
func (r *reader) produce(g *generation, p *plan) error {
	batcher, err := r.newBatcher()
	if err != nil {
		return err
	}
	if batcher != nil {
		defer batcher.Close(g.ctx)
	}
	st := p.state
	if p.snapshot {
		if st, err = r.runSnapshot(g, batcher, st); err != nil {
			return r.settle(g, err)
		}
	}
	if !p.stream {
		_ = g.waitUnacked(g.ctx)
		return nil
	}
	return r.settle(g, r.runStream(g, batcher, st))
}

// settle lets in-flight batches finish before a failed generation ends, so
// that the next one starts after them instead of reading them again.
func (r *reader) settle(g *generation, err error) error {
	if err == nil || errors.Is(err, errRewind) || g.ctx.Err() != nil {
		return err
	}
	_ = g.waitUnacked(g.ctx)
	return err
}

// newBatcher builds the batching policy's batcher when one is configured, so
// that its processors run on every emitted batch.
func (r *reader) newBatcher() (*service.Batcher, error) {
	if r.polNoop {
		return nil, nil
	}
	return r.pol.NewBatcher(r.mgr)
}
