package e2e

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// binlogRun follows e2e.t (created by CreateTable) from now on with extra
// input fields, applies stmts, and returns the events once n arrived.
func binlogRun(t *testing.T, opts harness.TableOpts, extra string, n int, stmts ...string) ([]harness.Event, *harness.MetricsCapture, *harness.LogCapture, *dorissim.Server) {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE e2e")
	harness.CreateTable(t, srv, "e2e", "t", opts)
	harness.Exec(t, srv, "INSERT INTO e2e.t VALUES (1, 'a', 1, 10.00), (2, 'b', 2, 20.00)")
	time.Sleep(1100 * time.Millisecond)
	m, logs, col := &harness.MetricsCapture{}, &harness.LogCapture{}, &harness.Collector{}
	input := harness.InputYAML(srv, "e2e.t", "scan_mode: from-timestamp", "scan_timestamp: \""+harness.Now(t, srv)+"\"", extra)
	harness.RunStream(t, harness.StreamConfig{Input: input, Resources: harness.MemoryCache, Metrics: m, Logs: logs}, col)
	harness.Exec(t, srv, stmts...)
	evs := col.WaitFor(t, 30*time.Second, "the changes", func(evs []harness.Event) bool { return len(evs) >= n })
	// Anything beyond n would show up within a window or two.
	time.Sleep(2500 * time.Millisecond)
	evs = col.Events()
	if len(evs) != n {
		t.Fatalf("%d events, want %d: %+v", len(evs), n, evs)
	}
	return evs, m, logs, srv
}

func operations(evs []harness.Event) []string {
	ops := make([]string, len(evs))
	for i, e := range evs {
		ops[i] = e.Operation
	}
	return ops
}

func sameOps(t *testing.T, evs []harness.Event, want ...string) {
	t.Helper()
	if got := operations(evs); !slices.Equal(got, want) {
		t.Fatalf("operations %v, want %v", got, want)
	}
}

func TestMergedUpdates(t *testing.T) {
	evs, m, _, _ := binlogRun(t, harness.TableOpts{}, "binlog_merge_updates: true", 3,
		"UPDATE e2e.t SET qty = 5, amount = 12.50 WHERE id = 1",
		"INSERT INTO e2e.t VALUES (3, 'c', 3, 30.00)",
		"DELETE FROM e2e.t WHERE id = 2")
	sameOps(t, evs, "update", "insert", "delete")
	u := evs[0]
	checkRow(t, u, map[string]string{"id": "1", "name": `"a"`, "qty": "5", "amount": `"12.50"`})
	before, _ := json.Marshal(u.Before)
	if string(before) != `{"amount":"10.00","id":1,"name":"a","qty":1}` {
		t.Errorf("before = %s, want the row before the update", before)
	}
	if u.Op != 3 || u.TSO == 0 {
		t.Errorf("merged update at %v, want the update_after's position", u.Pos())
	}
	if evs[1].Before != nil || evs[2].Before != nil {
		t.Errorf("only updates carry before: %+v", evs[1:])
	}
	if n := m.Counter("doris_binlog_unpaired_updates_total"); n != 0 {
		t.Errorf("unpaired updates %d, want 0", n)
	}
	if n := m.Counter("doris_binlog_rows_total{,root.input,e2e.t,binlog,update}"); n != 1 {
		t.Errorf("rows_total of merged updates %d, want 1 (counters %v)", n, m.Names())
	}
	if n := m.Counter("doris_binlog_rows_total{,root.input,e2e.t,binlog,update_after}"); n != 0 {
		t.Errorf("rows_total of update_after %d, want 0: the merged update is counted as update", n)
	}
}

// Without before-images Doris writes an update as one op 0 row
// (doris-facts §8): there is no pair to merge, and nothing is reported.
func TestMergedUpdatesWithoutBeforeImages(t *testing.T) {
	evs, m, _, _ := binlogRun(t, harness.TableOpts{NoBeforeImages: true}, "binlog_merge_updates: true", 1,
		"UPDATE e2e.t SET qty = 5 WHERE id = 1")
	sameOps(t, evs, "insert")
	checkRow(t, evs[0], map[string]string{"id": "1", "qty": "5"})
	if evs[0].Before != nil {
		t.Errorf("before %v on an insert", evs[0].Before)
	}
	if n := m.Counter("doris_binlog_unpaired_updates_total"); n != 0 {
		t.Errorf("unpaired updates %d, want 0", n)
	}
}

func TestIgnoreUpdateBefore(t *testing.T) {
	evs, _, _, _ := binlogRun(t, harness.TableOpts{}, "binlog_ignore_update_before: true", 2,
		"UPDATE e2e.t SET qty = 5 WHERE id = 1",
		"DELETE FROM e2e.t WHERE id = 2")
	sameOps(t, evs, "update_after", "delete")
	checkRow(t, evs[0], map[string]string{"id": "1", "qty": "5"})
}

// binlog_filter runs in Doris on each row: the update of id 1 keeps its
// before-image only (qty 1 < 3 matches, qty 9 does not), the update of id 4
// its after-image only (qty 7, then 0). With merging both halves arrive unmerged, warned
// about and counted; the insert of id 4 does not match at all.
func TestBinlogFilterHalfPairs(t *testing.T) {
	evs, m, logs, _ := binlogRun(t, harness.TableOpts{}, "binlog_merge_updates: true\nbinlog_filter: \"qty < 3 OR name = 'x;y'\"", 3,
		"UPDATE e2e.t SET qty = 9 WHERE id = 1",
		"INSERT INTO e2e.t VALUES (4, 'd', 7, 40.00)",
		"UPDATE e2e.t SET qty = 0 WHERE id = 4",
		"INSERT INTO e2e.t VALUES (5, 'x;y', 8, 50.00)")
	sameOps(t, evs, "update_before", "update_after", "insert")
	checkRow(t, evs[0], map[string]string{"id": "1", "qty": "1"})
	checkRow(t, evs[1], map[string]string{"id": "4", "qty": "0"})
	checkRow(t, evs[2], map[string]string{"id": "5", "name": `"x;y"`})
	if n := m.Counter("doris_binlog_unpaired_updates_total"); n != 2 {
		t.Errorf("unpaired updates %d, want 2", n)
	}
	if len(logs.Lines(slog.LevelWarn, "delivered unmerged")) == 0 {
		t.Errorf("no warning about the half pairs:\n%s", logs.All())
	}
}

// TestMergedUpdatesCheckpointNeverBetweenHalves: with one message per batch
// and a slow output, every checkpoint written while 20 updates of one
// transaction are delivered points at an update_after (the merged message),
// never at an update_before. Without merging the same run does point at
// update_before rows, which the control run checks.
func TestMergedUpdatesCheckpointNeverBetweenHalves(t *testing.T) {
	for _, merge := range []bool{true, false} {
		srv := harness.StartSim(t, dorissim.Config{})
		harness.Exec(t, srv, "CREATE DATABASE e2e")
		harness.CreateTable(t, srv, "e2e", "t", harness.TableOpts{})
		var rows []string
		for i := 1; i <= 20; i++ {
			rows = append(rows, fmt.Sprintf("(%d, 'n', %d, 1.00)", i, i))
		}
		harness.Exec(t, srv, "INSERT INTO e2e.t VALUES "+strings.Join(rows, ", "))
		time.Sleep(1100 * time.Millisecond)
		col := &harness.Collector{Delay: 30 * time.Millisecond}
		input := harness.InputYAML(srv, "e2e.t", "scan_mode: from-timestamp", "scan_timestamp: \""+harness.Now(t, srv)+"\"",
			"batch_size: 1", fmt.Sprintf("binlog_merge_updates: %v", merge))
		r := harness.RunStream(t, harness.StreamConfig{Input: input, Resources: harness.MemoryCache}, col)
		harness.Exec(t, srv, "UPDATE e2e.t SET qty = qty + 100")
		want := 20
		if !merge {
			want = 40
		}
		ops := map[int64]int{}
		harness.WaitFor(t, 60*time.Second, "the updates", func() bool {
			if st := harness.StoredState(t, r, harness.CheckpointKey("e2e", "t")); st != nil && st.Stream != nil && st.Stream.Last != nil {
				ops[int64(st.Stream.Last.Op)]++
			}
			return len(col.Events()) >= want
		})
		switch {
		case merge && ops[2] > 0:
			t.Errorf("merged: %d checkpoints pointed between the halves of an update (%v)", ops[2], ops)
		case merge && ops[3] == 0:
			t.Errorf("merged: no checkpoint observed inside the window (%v)", ops)
		case !merge && ops[2] == 0:
			t.Errorf("control run without merging never saw a checkpoint at an update_before (%v): the test cannot tell", ops)
		}
	}
}
