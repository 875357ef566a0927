package e2e

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestInitialSnapshotWaitsForPublishes commits rows before an initial
// stream starts and holds their publish, as a slow Doris publish does: they
// have commit TSOs before the stream start, so the binlog will never bring
// them, and a snapshot read before the publish would not see them either.
// The input must wait for the publish before it reads the snapshot, and
// then deliver every row once.
func TestInitialSnapshotWaitsForPublishes(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "pub", "t", harness.TableOpts{Buckets: 2})
	w := harness.NewWorkload(srv, "pub", "t", 7)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	hold, err := srv.Store().HoldPublish("pub", "t")
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	heldFrom := w.NextID()
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 5); err != nil {
		t.Fatal(err)
	}
	if n := hold.Held(); n == 0 {
		t.Fatal("the insert's commit was not held")
	}
	// In a Doris second that has passed: the snapshot is read as of a TSO
	// after it, so the held rows belong to the snapshot.
	time.Sleep(1100 * time.Millisecond)
	col := &harness.Collector{}
	logs := &harness.LogCapture{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "pub.t", "scan_mode: initial"), Resources: harness.MemoryCache, Logs: logs}, col)
	deadline := time.Now().Add(30 * time.Second)
	for !hold.Waiting() && !hold.Scanned() {
		if time.Now().After(deadline) {
			t.Fatalf("the input neither waited for the publish nor read the snapshot within 30s\n%s", logs.All())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if hold.Scanned() {
		t.Fatal("the snapshot was read while commits before the stream start were still being published")
	}
	hold.Release()
	want := harness.TableState(t, srv, "pub", "t", "id", cols...)
	if len(want) != 25 {
		t.Fatalf("the table holds %d rows after the publish, want 25", len(want))
	}
	var diff string
	evs := col.WaitFor(t, 30*time.Second, "every row, held ones included", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		if err != nil {
			t.Fatal(err)
		}
		diff = harness.Diff(want, got)
		return diff == ""
	})
	seen := map[string]int{}
	for _, ev := range evs {
		seen[fmt.Sprint(ev.Row["id"])]++
	}
	for id := heldFrom; id < heldFrom+5; id++ {
		if n := seen[strconv.FormatInt(id, 10)]; n != 1 {
			t.Errorf("held row %d was delivered %d times, want once", id, n)
		}
	}
}
