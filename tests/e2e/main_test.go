// Package e2e runs the doris_binlog input against dorissim through Benthos
// stream builders: every scan mode and increment type, restarts, nacks and
// the offset table.
package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

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

// simWithOneRow starts a simulator with table e2e.t holding row 1, committed
// in a Doris second that has passed, so a snapshot taken now holds it and
// the binlog after the snapshot does not.
func simWithOneRow(t *testing.T) *dorissim.Server {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE e2e")
	harness.CreateTable(t, srv, "e2e", "t", harness.TableOpts{})
	harness.Exec(t, srv, "INSERT INTO e2e.t VALUES (1, 'a', 1, 10.00)")
	time.Sleep(1100 * time.Millisecond)
	return srv
}
