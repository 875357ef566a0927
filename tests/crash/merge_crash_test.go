package crash

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The merged-updates crash test: doris_binlog with binlog_merge_updates
// feeds doris_load into a DUPLICATE KEY target, and the process is SIGKILLed
// after a batch was loaded but before it was acked. The restart loads the
// batches from the committed position again, and the target must drop each
// repeat by its label: that holds only when the batches after the restart
// are the ones before it, which an update_before at a batch's end used to
// break (it was held back into the next batch, so every later boundary
// moved).
const (
	mcDB      = "mc"
	mcTarget  = "mc_t"
	mcUpdates = 12 // one statement updating this many rows: one TSO, one window
	mcBatch   = 3  // odd, so that raw batches of UB/UA pairs end on an update_before
)

func TestCrashLoadMergedUpdates(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, mcDB, "src", harness.TableOpts{Buckets: 2})
	harness.Exec(t, srv, "CREATE DATABASE `"+mcTarget+"`",
		"CREATE TABLE `"+mcTarget+"`.`changes` (`tso` BIGINT NOT NULL, `lsn` BIGINT NOT NULL, `op` VARCHAR(16) NOT NULL, "+
			"`id` BIGINT, `name` VARCHAR(64), `qty` INT, `amount` DECIMAL(10, 2)) DUPLICATE KEY(`tso`, `lsn`) "+
			"DISTRIBUTED BY HASH(`tso`) BUCKETS 2 PROPERTIES (\"replication_num\" = \"1\")")
	row := func(id, qty int) string { return fmt.Sprintf("(%d, 'n%d', %d, %d.50)", id, id, qty, id) }
	upsert := func(qty int) {
		vals := make([]string, mcUpdates)
		for i := range vals {
			vals[i] = row(i+1, qty)
		}
		harness.Exec(t, srv, "INSERT INTO `"+mcDB+"`.`src` (`id`, `name`, `qty`, `amount`) VALUES "+strings.Join(vals, ", "))
	}
	upsert(1)
	time.Sleep(1100 * time.Millisecond)
	from := harness.Now(t, srv) // after the inserts' second: the binlog read holds only the updates
	waitPast(t, srv, from)
	upsert(2) // every row again: an update_before/update_after pair per row, one TSO
	time.Sleep(1100 * time.Millisecond)

	changes := tableChanges(t, srv, mcDB, "src", from, harness.Now(t, srv))
	want := mergedChanges(t, changes)
	if len(want) != mcUpdates {
		t.Fatalf("the source holds %d changes after %s, want %d updates: %+v", len(want), from, mcUpdates, changes)
	}
	// The gate holds the batch with the third update unacked, so the crash
	// comes after an earlier batch was acked and this one loaded. Before
	// the fix that batch had begun with an update_before held back from the
	// batch before it.
	gate := want[2]

	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	var runs []*run
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range runs {
				t.Log(r.logTail())
			}
		}
	})
	first := startLoadRun(t, dir, cacheDir, 1, mergeCrashConfig(srv, cacheDir, from, &gate))
	runs = append(runs, first)
	var got []changeRow
	harness.WaitFor(t, 60*time.Second, "the gated batch to be loaded", func() bool {
		if first.exited() {
			t.Fatalf("run 1 exited: %v", first.waitErr)
		}
		got = mergeTargetChanges(t, srv)
		return countOf(got, gate) > 0
	})
	// The batches after the gated one may load as well, unacked too: wait
	// for the target to settle before the kill.
	settle(t, srv, &got)
	// The restart must begin after an acked batch, not at the window's
	// start, where the batches would be cut as before even with the
	// update_before held back.
	cpPath := filepath.Join(cacheDir, checkpoint.TableKey(mcDB, "src"))
	harness.WaitFor(t, 20*time.Second, "a checkpoint inside the window", func() bool {
		st, err := readCopy(cpPath)
		return err == nil && st != nil && st.Stream != nil && st.Stream.Last != nil
	})
	first.kill(t)
	st, err := readCopy(cpPath)
	if err != nil || st == nil || st.Stream == nil {
		t.Fatalf("the checkpoint after the kill: %+v, %v", st, err)
	}
	if st.Stream.Last == nil || st.Stream.Last.TSO != gate.tso || st.Stream.Last.LSN >= gate.lsn {
		t.Fatalf("the crash must fall after an acked batch and before the gated one; the checkpoint holds %+v (gate at TSO %d LSN %d)", st.Stream.Last, gate.tso, gate.lsn)
	}
	t.Logf("killed with %d of %d changes loaded, the checkpoint at LSN %d", len(got), len(want), st.Stream.Last.LSN)

	second := startLoadRun(t, dir, cacheDir, 2, mergeCrashConfig(srv, cacheDir, from, nil))
	runs = append(runs, second)
	last := want[len(want)-1]
	harness.WaitFor(t, 60*time.Second, "the restart to load the last change", func() bool {
		if second.exited() {
			t.Fatalf("run 2 exited: %v", second.waitErr)
		}
		got = mergeTargetChanges(t, srv)
		return countOf(got, last) > 0
	})
	// Loads go out one batch at a time, in order: once the last change is
	// there, so is every replayed batch. The clean stop must not load more.
	if code := second.terminate(t, 60*time.Second); code != 0 {
		t.Errorf("run 2 exited with %d after SIGTERM", code)
	}
	got = mergeTargetChanges(t, srv)
	dups, lost, extra := compareChanges(want, got)
	line := fmt.Sprintf("merge-crash: changes=%d target_rows=%d duplicates=%d lost=%d", len(want), len(got), dups, lost)
	t.Log(line)
	fmt.Println(line)
	if dups != 0 || lost != 0 || extra != 0 {
		t.Errorf("the DUPLICATE KEY target holds %d duplicate, %d lost and %d unknown changes", dups, lost, extra)
	}
}

// mergedChanges pairs the source's update_before/update_after rows into the
// updates binlog_merge_updates delivers, in position order.
func mergedChanges(t *testing.T, rows []changeRow) []changeRow {
	t.Helper()
	var out []changeRow
	halves := map[changeRow]int{}
	for _, r := range rows {
		if r.op != "update_before" && r.op != "update_after" {
			t.Fatalf("the source holds a %s at TSO %d LSN %d, want updates only", r.op, r.tso, r.lsn)
		}
		u := changeRow{tso: r.tso, lsn: r.lsn, op: "update"}
		if halves[u]++; halves[u] == 2 {
			out = append(out, u)
		}
	}
	if len(out)*2 != len(rows) {
		t.Fatalf("the source's update halves do not pair up: %+v", rows)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].tso != out[j].tso {
			return out[i].tso < out[j].tso
		}
		return out[i].lsn < out[j].lsn
	})
	return out
}

func mergeTargetChanges(t *testing.T, srv *dorissim.Server) []changeRow {
	t.Helper()
	return changesIn(t, srv, mcTarget)
}

func countOf(rows []changeRow, c changeRow) int {
	n := 0
	for _, r := range rows {
		if r == c {
			n++
		}
	}
	return n
}

// settle waits (bounded) until the target's row count holds still for a
// second.
func settle(t *testing.T, srv *dorissim.Server, got *[]changeRow) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for n := len(*got); time.Now().Before(deadline); {
		time.Sleep(time.Second)
		*got = mergeTargetChanges(t, srv)
		if len(*got) == n {
			return
		}
		n = len(*got)
	}
	t.Fatalf("the target was still growing after 20s (%d rows)", len(*got))
}

// mergeCrashConfig reads mc.src from from with merged updates in batches
// of mcBatch, and appends every change with its position to the DUPLICATE
// KEY target. With gate, a second output of the fan-out never acks the
// batch holding that change, as a process dying right after the load would
// not: doris_load has loaded it, and the checkpoint stays before it.
func mergeCrashConfig(srv *dorissim.Server, cacheDir, from string, gate *changeRow) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: DEBUG\n  format: logfmt\nshutdown_timeout: 30s\n")
	b.WriteString("input:\n")
	harness.Indent(&b, harness.InputYAML(srv, mcDB+".src", "scan_mode: from-timestamp", "scan_timestamp: '"+from+"'",
		"binlog_merge_updates: true", fmt.Sprintf("batch_size: %d", mcBatch), "checkpoint_limit: 100"))
	b.WriteString("pipeline:\n  threads: 1\n")
	fmt.Fprintf(&b, `output:
  broker:
    pattern: fan_out
    outputs:
      - doris_load:
          fenodes: %s
          username: root
          password: ""
          table_identifier: %s.changes
          request_read_timeout: 30s
        processors:
          - mapping: |
              let op = @operation
              meta operation = "insert"
              root = this.merge({"tso": @tso, "lsn": @lsn, "op": $op})
      - drop: {}
`, srv.HTTPAddr(), mcTarget)
	if gate != nil {
		fmt.Fprintf(&b, `        processors:
          - switch:
              - check: '@tso == %d && @lsn == %d'
                processors:
                  - sleep:
                      duration: 1h
`, gate.tso, gate.lsn)
	}
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}
