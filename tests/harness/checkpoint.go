package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// StoredState reads the checkpoint under key from the running stream's
// cache "cp"; nil when there is none yet. It reads the way the input does
// at start (checkpoint.Store.Load): the stream may be saving meanwhile, and
// a file cache's write truncates before it writes, so the primary copy can
// read empty for a moment; the backup, written first, is then complete.
func StoredState(t testing.TB, r *Running, key string) *checkpoint.State {
	t.Helper()
	st, _, err := checkpoint.NewStore(r.Stream.Resources(), "cp", key).Load(context.Background())
	if err != nil {
		t.Fatalf("reading checkpoint %s: %v", key, err)
	}
	return st
}

// StoredStateFile reads the checkpoint a `file` cache in dir holds under key.
func StoredStateFile(t testing.TB, dir, key string) *checkpoint.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, key))
	if err != nil {
		t.Fatalf("reading checkpoint %s: %v", key, err)
	}
	st, err := checkpoint.Decode(b)
	if err != nil {
		t.Fatalf("decoding checkpoint %s: %v", key, err)
	}
	return st
}

// WaitFor polls cond until it holds, failing the test after timeout.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// CheckpointKey is the default checkpoint key of an input that follows the
// one table db.table, as the input derives it.
func CheckpointKey(db, table string) string { return checkpoint.TableKey(db, table) }
