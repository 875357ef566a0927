// Package e2e runs the doris_binlog input against dorissim through Benthos
// stream builders: every scan mode and increment type, restarts, nacks and
// the offset table.
package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// waitCheckpoint waits until the input has stored a checkpoint under key,
// which for latest mode means its stream start is fixed.
func waitCheckpoint(t *testing.T, r *harness.Running, key string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var found bool
		err := r.Stream.Resources().AccessCache(context.Background(), "cp", func(c service.Cache) {
			_, err := c.Get(context.Background(), key)
			found = err == nil
		})
		if err != nil && !errors.Is(err, service.ErrKeyNotFound) {
			t.Fatalf("reading cache: %v", err)
		}
		if found {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no checkpoint under %s after 30s", key)
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// runWorkload applies steps transactions, spread over a few poll intervals
// so that they land in several windows.
func runWorkload(t *testing.T, w *harness.Workload, steps int) {
	t.Helper()
	ctx := ctxTimeout(t, time.Minute)
	for i := range steps {
		if err := w.Step(ctx); err != nil {
			t.Fatalf("workload step %d: %v", i, err)
		}
		if i%10 == 9 {
			time.Sleep(400 * time.Millisecond)
		}
	}
}

var cols = []string{"id", "name", "qty", "amount"}
