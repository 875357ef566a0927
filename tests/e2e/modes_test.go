package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestScanModesAndIncrementTypes runs every scan mode with a binlog phase
// under every increment type, and checks what each promises:
//   - detail and min_delta replay, on top of the snapshot (initial) or of the
//     table as it was at the start (latest, from-timestamp), into exactly the
//     final table, in (TSO, LSN, OP) order and without duplicates;
//   - append_only delivers exactly one insert per key inserted after the start.
func TestScanModesAndIncrementTypes(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE e2e")
	seed := uint64(1)
	for _, mode := range []string{"initial", "latest", "from-timestamp"} {
		for _, typ := range []string{"detail", "min_delta", "append_only"} {
			seed++
			t.Run(mode+"/"+typ, func(t *testing.T) {
				t.Parallel()
				runModeCase(t, srv, mode, typ, seed)
			})
		}
	}
}

func runModeCase(t *testing.T, srv *dorissim.Server, mode, typ string, seed uint64) {
	table := fmt.Sprintf("t_%s_%s", strings.ReplaceAll(mode, "-", "_"), typ)
	harness.CreateTable(t, srv, "e2e", table, harness.TableOpts{})
	w := harness.NewWorkload(srv, "e2e", table, seed)
	extra := []string{"scan_mode: " + mode, "binlog_increment_type: " + typ}
	start := map[string]harness.Row{}
	if mode == "from-timestamp" {
		extra = append(extra, "scan_timestamp: \""+harness.Now(t, srv)+"\"")
		time.Sleep(1100 * time.Millisecond) // the pre-start rows must commit after the timestamp's second
	}
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	// Stream starts are whole seconds: let the pre-start rows' second pass so
	// that they are not also inside the first window.
	time.Sleep(1100 * time.Millisecond)
	if mode == "latest" {
		start = harness.TableState(t, srv, "e2e", table, "id", cols...)
	}
	col := &harness.Collector{}
	r := harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e."+table, extra...), Resources: harness.MemoryCache}, col)
	harness.WaitCheckpoint(t, r, harness.CheckpointKey("e2e", table))
	if mode == "initial" {
		col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 20 })
	}
	before := w.NextID()
	runWorkload(t, w, 40)
	want := harness.TableState(t, srv, "e2e", table, "id", cols...)

	if typ == "append_only" {
		checkAppendOnly(t, col, mode, before, w.NextID())
		return
	}
	var last string
	evs := col.WaitFor(t, 45*time.Second, "the final table state", func(evs []harness.Event) bool {
		got, err := harness.ReplayOnto(start, evs, "id")
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		last = harness.Diff(want, got)
		return last == ""
	})
	if n := harness.DuplicatePositions(evs); n != 0 {
		t.Fatalf("%d binlog events delivered twice", n)
	}
	checkPhases(t, evs, mode)
}

// checkPhases asserts snapshot rows (initial only) all come before binlog rows.
func checkPhases(t *testing.T, evs []harness.Event, mode string) {
	t.Helper()
	sawBinlog := false
	snap := 0
	for _, ev := range evs {
		switch ev.Phase {
		case "snapshot":
			if sawBinlog {
				t.Fatalf("snapshot row after binlog rows: %+v", ev)
			}
			if ev.Operation != "read" {
				t.Fatalf("snapshot row with operation %q", ev.Operation)
			}
			snap++
		case "binlog":
			sawBinlog = true
			if ev.Database != "e2e" || ev.CommitTSMs != ev.TSO>>18 || ev.SourceTSMs != ev.CommitTSMs || ev.TransactionID != strconv.FormatInt(ev.TSO, 10) {
				t.Fatalf("binlog metadata wrong: %+v", ev)
			}
		default:
			t.Fatalf("unknown phase %q", ev.Phase)
		}
	}
	if mode == "initial" && snap != 20 {
		t.Fatalf("initial mode delivered %d snapshot rows, want 20", snap)
	}
	if mode != "initial" && snap != 0 {
		t.Fatalf("%s mode delivered %d snapshot rows", mode, snap)
	}
}

// checkAppendOnly waits for exactly one insert per key in [from, to), plus
// the 20 pre-start keys in initial (as snapshot rows) and from-timestamp (as
// inserts) modes.
func checkAppendOnly(t *testing.T, col *harness.Collector, mode string, from, to int64) {
	t.Helper()
	wantKeys := map[string]bool{}
	first := from
	if mode == "from-timestamp" {
		first = 1
	}
	for id := first; id < to; id++ {
		wantKeys[fmt.Sprint(id)] = true
	}
	evs := col.WaitFor(t, 45*time.Second, "every new key's insert", func(evs []harness.Event) bool {
		n := 0
		for _, ev := range evs {
			if ev.Phase == "binlog" && wantKeys[fmt.Sprint(ev.Row["id"])] {
				n++
			}
		}
		return n >= len(wantKeys)
	})
	time.Sleep(1500 * time.Millisecond) // one more poll: nothing else may arrive
	evs = col.Events()
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Phase != "binlog" {
			continue
		}
		k := fmt.Sprint(ev.Row["id"])
		if ev.Operation != "insert" || ev.Op != 0 {
			t.Fatalf("append_only delivered %s (op %d)", ev.Operation, ev.Op)
		}
		if !wantKeys[k] || seen[k] {
			t.Fatalf("append_only delivered unexpected or repeated key %s", k)
		}
		seen[k] = true
	}
	checkPhases(t, evs, mode)
}

// TestInitialStartsAfterTheSnapshotSecond inserts rows and starts an initial
// stream at once, in the same second: the binlog starts at the next whole
// second, so those rows come once, from the snapshot, and not again as
// binlog inserts.
func TestInitialStartsAfterTheSnapshotSecond(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "e2e", "overlap", harness.TableOpts{})
	w := harness.NewWorkload(srv, "e2e", "overlap", 5)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: harness.InputYAML(srv, "e2e.overlap", "scan_mode: initial"), Resources: harness.MemoryCache}, col)
	col.WaitFor(t, 30*time.Second, "the snapshot", func(evs []harness.Event) bool { return len(evs) >= 20 })
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	evs := col.WaitFor(t, 30*time.Second, "the later insert", func(evs []harness.Event) bool { return len(evs) >= 21 })
	time.Sleep(1500 * time.Millisecond) // one more poll: nothing else may come
	evs = col.Events()
	if len(evs) != 21 || evs[20].Phase != "binlog" || fmt.Sprint(evs[20].Row["id"]) != "21" {
		t.Fatalf("want 20 snapshot rows and one binlog insert of id 21, got %d events: %+v", len(evs), evs[len(evs)-1])
	}
}
