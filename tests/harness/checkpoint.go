package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// StoredState reads the checkpoint under key from the running stream's
// cache "cp"; nil when there is none yet.
func StoredState(t testing.TB, r *Running, key string) *checkpoint.State {
	t.Helper()
	var (
		b   []byte
		err error
	)
	aerr := r.Stream.Resources().AccessCache(context.Background(), "cp", func(c service.Cache) {
		b, err = c.Get(context.Background(), key)
	})
	if errors.Is(err, service.ErrKeyNotFound) {
		return nil
	}
	if aerr != nil || err != nil {
		t.Fatalf("reading checkpoint %s: %v %v", key, aerr, err)
	}
	st, err := checkpoint.Decode(b)
	if err != nil {
		t.Fatalf("decoding checkpoint %s: %v", key, err)
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
