package faults

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	_ "github.com/rpconnect-doris/rpconnect-doris/cache"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestCheckpointValueTooLongStopsTheInput keeps the checkpoint in a doris
// cache whose value column (created beforehand, VARCHAR(340)) holds the
// stream's start but not the position after its first rows, as a STRING
// holds no value past string_type_length_soft_limit_bytes. The save that
// fails stops the input with an error naming the cache and the cause, at
// once and not after retrying; the stored position stays at the start, so
// the rows delivered but not saved are read again after a restart; and
// nothing more is read.
func TestCheckpointValueTooLongStopsTheInput(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	table := "value_too_long_" + strings.Repeat("x", 60)
	harness.CreateTable(t, srv, db, table, harness.TableOpts{})
	harness.Exec(t, srv, "CREATE DATABASE IF NOT EXISTS ops",
		"CREATE TABLE ops.cp_small (`cache_key` VARCHAR(512) NOT NULL, `cache_value` VARCHAR(340) NOT NULL, `update_time` DATETIME(3) NOT NULL) "+
			"UNIQUE KEY(`cache_key`) DISTRIBUTED BY HASH(`cache_key`) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
	cache := fmt.Sprintf("cache_resources:\n  - label: cp\n    doris:\n      jdbc_url: jdbc:mysql://%s\n      username: root\n      password: \"\"\n      table: ops.cp_small\n      backoff:\n        max_elapsed_time: 60s\n", srv.MySQLAddr())
	f := newFixture(t, srv, table, harness.NewWorkload(srv, db, table, 9), &harness.Collector{})
	// Batches of 2 end mid-window, where the position holds the last row
	// delivered (and the table name once more). checkpoint_limit 2 holds
	// the second batch back until the first is acked, so the first ack
	// saves a mid-window position. Without it Benthos may run the acks
	// (each on its own goroutine) with the first one last, after the
	// window's end was registered: that ack then resolves to the window's
	// end, which fits the column, and no save fails.
	in := harness.InputYAML(srv, db+"."+table, "scan_mode: latest", "batch_size: 2", "checkpoint_limit: 2")
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache, Logs: f.logs}, f.col)
	key := harness.CheckpointKey(db, table)
	harness.WaitCheckpoint(t, f.run, key)
	start := harness.StoredState(t, f.run, key)
	if start.Stream == nil || start.Stream.Last != nil {
		t.Fatalf("stored start %+v", start.Stream)
	}

	began := time.Now()
	f.insert(t, 10)
	f.col.WaitFor(t, 30*time.Second, "the first rows", func(evs []harness.Event) bool { return len(evs) >= 2 })
	var stop []harness.LogLine
	harness.WaitFor(t, 30*time.Second, "the input to stop on the failed save", func() bool {
		stop = f.logs.Lines(slog.LevelError, "checkpoint_cache cp")
		return len(stop) > 0
	})
	if took := time.Since(began); took > 45*time.Second {
		t.Fatalf("the input stopped only after %s: the permanent error was retried", took)
	}
	if text := stop[0].Text; !strings.Contains(text, "cannot be saved") || !strings.Contains(text, "too large for column 'cache_value'") || !strings.Contains(text, "doris cache ops.cp_small") || len(text) > 2000 {
		t.Fatalf("the stop error does not name the cache and the cause: %s", text)
	}
	// The chosen window ends may have been saved (they are saved before
	// the window's rows go out), but not a row of the window.
	if st := harness.StoredState(t, f.run, key); st.Stream.Start != start.Stream.Start || !st.Stream.End.IsZero() || st.Stream.Last != nil {
		t.Fatalf("the stored position moved to %+v although its save failed; was %+v", st.Stream, start.Stream)
	}
	n := len(f.col.Events())
	f.insert(t, 5)
	time.Sleep(3 * time.Second) // three poll intervals
	if got := len(f.col.Events()); got != n {
		t.Fatalf("the input went on reading after it stopped: %d events, then %d", n, got)
	}
}
