package crash

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// writer applies seeded workload steps to several tables from one goroutine
// (a Workload is not safe for concurrent use), pausing between steps so that
// the changes spread over many binlog windows.
type writer struct {
	loads []*harness.Workload
	rng   *rand.Rand
	pause time.Duration // average pause between steps

	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	steps  int
	err    error
}

func newWriter(loads []*harness.Workload, seed uint64, pause time.Duration) *writer {
	return &writer{loads: loads, rng: rand.New(rand.NewPCG(seed, seed+1)), pause: pause}
}

// start runs steps until stop (or maxSteps); a failed step ends the writer
// and is reported by stop.
func (w *writer) start(maxSteps int) {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		for i := 0; i < maxSteps; i++ {
			wl := w.loads[w.rng.IntN(len(w.loads))]
			// A step is never cut short: the workload has already noted its
			// change, and a half-applied step would only blur the figures.
			sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
			err := wl.Step(sctx)
			scancel()
			if err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
				return
			}
			w.mu.Lock()
			w.steps++
			w.mu.Unlock()
			d := time.Duration(w.rng.Int64N(int64(2*w.pause) + 1))
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
	}()
}

// stop ends the writer, waiting (bounded) for the step in progress.
func (w *writer) stop() (int, error) {
	if w.cancel == nil {
		return 0, nil
	}
	w.cancel()
	select {
	case <-w.done:
	case <-time.After(45 * time.Second):
		return w.stepsDone(), errors.New("writer did not stop within 45s")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.steps, w.err
}

func (w *writer) stepsDone() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.steps
}
