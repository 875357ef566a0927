package e2e

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
