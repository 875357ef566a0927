package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestNackedBatches rejects every third batch at the output; a rejected
// batch succeeds when it comes again, as with a transient output failure.
// With auto_replay_nacks true Benthos retries the batch; with false the input
// rewinds to its last committed checkpoint. Either way every change arrives.
func TestNackedBatches(t *testing.T) {
	for _, replay := range []bool{true, false} {
		t.Run(fmt.Sprintf("auto_replay_nacks=%v", replay), func(t *testing.T) {
			srv := harness.StartSim(t, dorissim.Config{})
			harness.CreateTable(t, srv, "e2e", "nacks", harness.TableOpts{})
			w := harness.NewWorkload(srv, "e2e", "nacks", 9)
			if err := w.Insert(ctxTimeout(t, 30*time.Second), 40); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1100 * time.Millisecond)
			col := &harness.Collector{Reject: harness.RejectEveryThirdOnce()}
			in := harness.InputYAML(srv, "e2e.nacks", "scan_mode: initial", "batch_size: 5",
				fmt.Sprintf("auto_replay_nacks: %v", replay))
			harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
			runWorkload(t, w, 40)
			want := harness.TableState(t, srv, "e2e", "nacks", "id", cols...)
			col.WaitFor(t, 60*time.Second, "every change despite nacks", func(evs []harness.Event) bool {
				got, err := harness.Replay(harness.SortDedupe(evs), "id")
				return err == nil && harness.Diff(want, got) == ""
			})
		})
	}
}
