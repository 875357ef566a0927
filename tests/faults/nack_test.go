package faults

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestNackEveryThirdBatch rejects every third batch. Nothing may be lost;
// with auto_replay_nacks false the rewind may repeat positions. Each
// rejection is an incident: it is logged at warn level, at most once.
func TestNackEveryThirdBatch(t *testing.T) {
	for _, replay := range []bool{true, false} {
		t.Run(fmt.Sprintf("auto_replay_nacks=%v", replay), func(t *testing.T) {
			srv := harness.StartSim(t, dorissim.Config{})
			table := fmt.Sprintf("nack_%v", replay)
			harness.CreateTable(t, srv, db, table, harness.TableOpts{})
			var rejected atomic.Int64
			f := newFixture(t, srv, table, harness.NewWorkload(srv, db, table, 11), &harness.Collector{Reject: func(n int, _ []harness.Event) bool {
				if n%3 == 0 {
					rejected.Add(1)
					return true
				}
				return false
			}})
			in := harness.InputYAML(srv, db+"."+table, "scan_mode: latest", "batch_size: 5", fmt.Sprintf("auto_replay_nacks: %v", replay))
			f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: f.logs}, f.col)
			harness.WaitCheckpoint(t, f.run, harness.CheckpointKey(db, table))
			f.insert(t, 30)
			f.steps(t, 30)
			want := harness.TableState(t, srv, db, table, "id", cols...)
			f.col.WaitFor(t, 60*time.Second, "every change despite nacks", func(evs []harness.Event) bool {
				got, err := harness.Replay(harness.SortDedupe(evs), "id")
				return err == nil && harness.Diff(want, got) == ""
			})
			if replay {
				if n := harness.DuplicatePositions(f.col.Events()); n != 0 {
					t.Fatalf("auto_replay_nacks true delivered %d positions twice", n)
				}
			}
			n := int(rejected.Load())
			if n == 0 {
				t.Fatal("no batch was rejected")
			}
			assertWarned(t, f.logs, `(?i)reject|nack`, n)
		})
	}
}
