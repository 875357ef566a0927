package e2e

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// replayEquals waits until the events of every table rebuild it exactly.
func replayEquals(t *testing.T, srv *dorissim.Server, col *harness.Collector, db string, tables ...string) []harness.Event {
	t.Helper()
	want := map[string]map[string]harness.Row{}
	for _, tbl := range tables {
		want[tbl] = harness.TableState(t, srv, db, tbl, "id", cols...)
	}
	var diff string
	evs := col.WaitFor(t, 60*time.Second, "every table replayed", func(evs []harness.Event) bool {
		for _, tbl := range tables {
			got, err := harness.Replay(harness.OfTable(evs, db, tbl), "id")
			if err != nil {
				t.Fatalf("replay of %s: %v", tbl, err)
			}
			if diff = harness.Diff(want[tbl], got); diff != "" {
				diff = tbl + ": " + diff
				return false
			}
		}
		return true
	})
	if n := harness.DuplicatePositions(evs); n != 0 {
		t.Fatalf("%d binlog positions delivered twice", n)
	}
	return evs
}

// TestTablesAndPatternSelection follows a list of tables, then an include
// pattern with an exclude, where a matched table without row binlog is
// skipped with one warning however often discovery runs.
func TestTablesAndPatternSelection(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	for _, tbl := range []string{"a", "b", "c"} {
		harness.CreateTable(t, srv, "sel", tbl, harness.TableOpts{})
	}
	harness.CreateTable(t, srv, "sel", "nobinlog", harness.TableOpts{NoBinlog: true})
	harness.CreateTable(t, srv, "other", "a", harness.TableOpts{})
	loads := map[string]*harness.Workload{}
	for i, tbl := range []string{"a", "b", "c", "nobinlog"} {
		loads[tbl] = harness.NewWorkload(srv, "sel", tbl, uint64(10+i))
		if err := loads[tbl].Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
			t.Fatal(err)
		}
	}
	if err := harness.NewWorkload(srv, "other", "a", 99).Insert(ctxTimeout(t, 30*time.Second), 5); err != nil {
		t.Fatal(err)
	}

	t.Run("tables", func(t *testing.T) {
		col := &harness.Collector{}
		in := harness.SelectYAML(srv, "tables: [sel.a, sel.b]", "scan_mode: initial", "batch_size: 9")
		harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
		col.WaitFor(t, 30*time.Second, "both snapshots", func(evs []harness.Event) bool { return len(evs) >= 40 })
		runWorkload(t, loads["a"], 10)
		runWorkload(t, loads["b"], 10)
		evs := replayEquals(t, srv, col, "sel", "a", "b")
		for _, ev := range evs {
			if ev.Database != "sel" || (ev.Table != "a" && ev.Table != "b") {
				t.Fatalf("an event of a table not listed: %+v", ev)
			}
		}
	})

	t.Run("include", func(t *testing.T) {
		logs := &harness.LogCapture{}
		col := &harness.Collector{}
		in := harness.SelectYAML(srv, `include: ['sel\..*']`, "exclude: ['sel\\.b']", "scan_mode: initial", "table_discovery_interval: 1s")
		harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
		col.WaitFor(t, 30*time.Second, "the snapshots", func(evs []harness.Event) bool { return len(evs) >= 40 })
		runWorkload(t, loads["a"], 10)
		runWorkload(t, loads["c"], 10)
		replayEquals(t, srv, col, "sel", "a", "c")
		time.Sleep(2500 * time.Millisecond) // several discoveries
		for _, ev := range col.Events() {
			if ev.Database != "sel" || (ev.Table != "a" && ev.Table != "c") {
				t.Fatalf("an event of a table include/exclude leave out: %+v", ev)
			}
		}
		skipped := logs.Lines(slog.LevelWarn, "Skipping table sel.nobinlog")
		if len(skipped) != 1 || !strings.Contains(skipped[0].Text, "no row binlog") {
			t.Fatalf("want one warning naming sel.nobinlog, got %v\n%s", skipped, logs.All())
		}
		if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
			t.Fatalf("errors logged: %v", errs)
		}
	})

	t.Run("invalid pattern", func(t *testing.T) {
		in := harness.SelectYAML(srv, `include: ['sel\..*', 'sel.(']`)
		err := harness.LintStream(in)
		if err == nil || !strings.Contains(err.Error(), `include pattern 1 ("sel.(") is not a valid regular expression`) {
			t.Fatalf("lint error %v", err)
		}
	})
}

// TestMultiTableTransactionIsOneRun commits changes to two tables in one
// transaction: they arrive as one contiguous run with one TSO, ordered by
// table name and then LSN, between the events of other transactions.
func TestMultiTableTransactionIsOneRun(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "txn", "orders", harness.TableOpts{})
	harness.CreateTable(t, srv, "txn", "customers", harness.TableOpts{})
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, "tables: [txn.orders, txn.customers]", "scan_mode: latest", "checkpoint_cache_key: txn")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
	harness.WaitCheckpoint(t, r, "txn")
	ins := func(tbl string, id int) string {
		return "INSERT INTO `txn`.`" + tbl + "` (`id`, `name`, `qty`, `amount`) VALUES (" + strconv.Itoa(id) + ", 'n', 1, 1.00)"
	}
	harness.Exec(t, srv, ins("orders", 1))
	harness.Tx(t, srv, ins("orders", 2), ins("customers", 1), "UPDATE `txn`.`orders` SET `qty` = 5 WHERE `id` = 1", ins("customers", 2))
	harness.Exec(t, srv, ins("customers", 3))
	evs := col.WaitFor(t, 30*time.Second, "the three transactions", func(evs []harness.Event) bool { return len(evs) >= 7 })
	if len(evs) != 7 {
		t.Fatalf("want 7 events, got %d: %+v", len(evs), evs)
	}
	tx := evs[1].TSO
	var run []harness.Event
	for i, ev := range evs {
		if ev.TSO == tx {
			if len(run) > 0 && evs[i-1].TSO != tx {
				t.Fatalf("the transaction's events are not contiguous: %+v", evs)
			}
			run = append(run, ev)
		}
	}
	if len(run) != 5 {
		t.Fatalf("the transaction has %d events with TSO %d, want 5: %+v", len(run), tx, evs)
	}
	// customers sorts before orders; within a table, LSN order.
	tables := []string{}
	for _, ev := range run {
		tables = append(tables, ev.Table)
	}
	if !slices.Equal(tables, []string{"customers", "customers", "orders", "orders", "orders"}) {
		t.Fatalf("order within the transaction: %v", tables)
	}
	for i := 1; i < len(run); i++ {
		if run[i].Table == run[i-1].Table && !(run[i-1].LSN < run[i].LSN || run[i-1].LSN == run[i].LSN && run[i-1].Op < run[i].Op) {
			t.Fatalf("LSN order broken inside %s: %+v", run[i].Table, run)
		}
	}
	if evs[0].TSO >= tx || evs[6].TSO <= tx {
		t.Fatalf("transactions out of commit order: %+v", evs)
	}
}

// TestTableCreatedMidRunJoins creates a table while an include stream
// runs: it is snapshotted, catches up and streams, with nothing lost,
// while the other table keeps streaming.
func TestTableCreatedMidRunJoins(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "join", "old", harness.TableOpts{})
	old := harness.NewWorkload(srv, "join", "old", 1)
	if err := old.Insert(ctxTimeout(t, 30*time.Second), 10); err != nil {
		t.Fatal(err)
	}
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['join\..*']`, "scan_mode: initial", "table_discovery_interval: 1s", "batch_size: 5")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	col.WaitFor(t, 30*time.Second, "the first snapshot", func(evs []harness.Event) bool { return len(evs) >= 10 })

	harness.CreateTable(t, srv, "join", "late", harness.TableOpts{})
	late := harness.NewWorkload(srv, "join", "late", 2)
	if err := late.Insert(ctxTimeout(t, 30*time.Second), 30); err != nil {
		t.Fatal(err)
	}
	// Changes keep coming while the table is found, snapshotted and catches up.
	for range 6 {
		runWorkload(t, late, 5)
		runWorkload(t, old, 5)
	}
	evs := replayEquals(t, srv, col, "join", "old", "late")
	reads := 0
	for _, ev := range harness.OfTable(evs, "join", "late") {
		if ev.Phase == "snapshot" {
			reads++
		}
	}
	if reads == 0 {
		t.Fatal("the new table was not snapshotted")
	}
	if len(logs.Lines(slog.LevelInfo, "Table discovery: added 1 table: join.late")) != 1 {
		t.Fatalf("want one discovery line naming join.late\n%s", logs.All())
	}
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
}

// TestDroppedTableLeaves drops a followed table: a warning, the stream goes
// on with the others, and the checkpoint forgets it.
func TestDroppedTableLeaves(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "drop", "keep", harness.TableOpts{})
	harness.CreateTable(t, srv, "drop", "gone", harness.TableOpts{})
	keep := harness.NewWorkload(srv, "drop", "keep", 1)
	gone := harness.NewWorkload(srv, "drop", "gone", 2)
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['drop\..*']`, "scan_mode: latest", "table_discovery_interval: 1s", "checkpoint_cache_key: drop")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	harness.WaitCheckpoint(t, r, "drop")
	runWorkload(t, gone, 10)
	runWorkload(t, keep, 10)
	col.WaitFor(t, 30*time.Second, "changes of both", func(evs []harness.Event) bool {
		return len(harness.OfTable(evs, "drop", "gone")) > 0 && len(harness.OfTable(evs, "drop", "keep")) > 0
	})
	harness.Exec(t, srv, "DROP TABLE `drop`.`gone`")
	runWorkload(t, keep, 10)
	harness.WaitFor(t, 30*time.Second, "the checkpoint to forget drop.gone", func() bool {
		st := harness.StoredState(t, r, "drop")
		return st != nil && st.Tables["drop.gone"] == nil && st.Tables["drop.keep"] != nil
	})
	want := harness.TableState(t, srv, "drop", "keep", "id", cols...)
	col.WaitFor(t, 30*time.Second, "drop.keep replayed", func(evs []harness.Event) bool {
		got, err := harness.Replay(harness.OfTable(evs, "drop", "keep"), "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	if n := len(logs.Lines(slog.LevelWarn, "Table drop.gone was dropped")); n != 1 {
		t.Fatalf("want one warning about drop.gone, got %d\n%s", n, logs.All())
	}
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
}

// TestRestartMidSnapshotOfSeveralTables stops an initial stream while
// several tables are being snapshotted two at a time; the restart reads
// only what was not yet delivered, and the two runs rebuild every table.
// With one query per split the unit of progress is a split; with the
// default snapshot_query_rows these small tables are read in one query
// each, and the unit is the table.
func TestRestartMidSnapshotOfSeveralTables(t *testing.T) {
	cases := []struct {
		name  string
		extra []string
		stop  int // events of the first run before it is stopped
	}{
		{"query_per_split", []string{"snapshot_query_rows: 0"}, 300},
		{"query_per_table", nil, 900},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { restartMidSnapshotOfSeveralTables(t, tc.extra, tc.stop) })
	}
}

func restartMidSnapshotOfSeveralTables(t *testing.T, extra []string, stopAt int) {
	srv := harness.StartSim(t, dorissim.Config{})
	names := []string{"t1", "t2", "t3", "t4"}
	for i, tbl := range names {
		harness.CreateTable(t, srv, "snaps", tbl, harness.TableOpts{Buckets: 8})
		if err := harness.NewWorkload(srv, "snaps", tbl, uint64(i)).Insert(ctxTimeout(t, 30*time.Second), 400); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(1100 * time.Millisecond) // in a past Doris second: in the snapshot
	dir := t.TempDir()
	cache := harness.FileCache(dir)
	opts := append([]string{"scan_mode: initial", "max_parallel_snapshot_tables: 2", "max_parallel_snapshot_splits: 1",
		"batch_size: 10", "checkpoint_limit: 20", "checkpoint_cache_key: snaps"}, extra...)
	in := harness.SelectYAML(srv, `include: ['snaps\..*']`, opts...)
	first := &harness.Collector{}
	first.Delay = 5 * time.Millisecond // a slow output, so that the stop lands mid-snapshot
	r1 := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache}, first)
	first.WaitFor(t, 60*time.Second, "part of the snapshots", func(evs []harness.Event) bool { return len(evs) >= stopAt })
	if err := r1.Stop(20 * time.Second); err != nil {
		t.Fatalf("stopping: %v", err)
	}
	st := harness.StoredStateFile(t, dir, "snaps")
	doneRows, snapshotting := 0, 0
	for name, ts := range st.Tables {
		if ts.Phase != "snapshot" {
			doneRows += 400
			continue
		}
		snapshotting++
		if len(ts.DoneTablets) > 0 {
			doneRows += countInTablets(t, srv, name, ts.DoneTablets)
		}
	}
	if snapshotting == 0 || doneRows == 0 {
		t.Fatalf("the stop did not land mid-snapshot with progress saved: %s", describeTables(st))
	}
	second := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: cache}, second)
	var diff string
	second.WaitFor(t, 60*time.Second, "every table rebuilt", func(evs []harness.Event) bool {
		all := append(first.Events(), evs...)
		for _, tbl := range names {
			got, err := harness.Replay(harness.OfTable(all, "snaps", tbl), "id")
			if err != nil {
				t.Fatal(err)
			}
			if diff = harness.Diff(harness.TableState(t, srv, "snaps", tbl, "id", cols...), got); diff != "" {
				return false
			}
		}
		return true
	})
	reread := 0
	for _, ev := range second.Events() {
		if ev.Phase == "snapshot" {
			reread++
		}
	}
	// What was marked done is not read again: the second run reads at most
	// the rows of the tablets not marked done.
	if reread > 1600-doneRows {
		t.Fatalf("the restart read %d snapshot rows although %d of 1600 were in finished tablets", reread, doneRows)
	}
}

// countInTablets counts the rows of a table's tablets.
func countInTablets(t *testing.T, srv *dorissim.Server, table string, tablets []int64) int {
	t.Helper()
	ids := make([]string, len(tablets))
	for i, id := range tablets {
		ids[i] = strconv.FormatInt(id, 10)
	}
	db, tbl, _ := strings.Cut(table, ".")
	rows, err := srv.Query(ctxTimeout(t, 30*time.Second), "SELECT COUNT(*) FROM `"+db+"`.`"+tbl+"` TABLET("+strings.Join(ids, ",")+")")
	if err != nil || len(rows) != 1 {
		t.Fatalf("counting rows of %s: %v %v", table, rows, err)
	}
	n, err := strconv.Atoi(fmt.Sprint(rows[0][0]))
	if err != nil {
		t.Fatalf("count %v: %v", rows[0][0], err)
	}
	return n
}

// describeTables names each table's phase and finished tablets, in order.
func describeTables(st *checkpoint.State) string {
	var parts []string
	for _, name := range st.TableNames() {
		ts := st.Tables[name]
		parts = append(parts, fmt.Sprintf("%s: %s, %d tablets done", name, ts.Phase, len(ts.DoneTablets)))
	}
	return strings.Join(parts, "; ")
}
