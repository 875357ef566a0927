package e2e

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// signalDDL creates the signal table as docs/operating.md shows it.
func signalDDL(db, table string) string {
	return fmt.Sprintf("CREATE TABLE `%s`.`%s` (\n  `id` VARCHAR(64) NOT NULL,\n  `type` VARCHAR(32),\n  `data` STRING\n) UNIQUE KEY(`id`)\n"+
		"DISTRIBUTED BY HASH(`id`) BUCKETS 1\nPROPERTIES (\"replication_num\" = \"1\", \"binlog.enable\" = \"true\", \"binlog.format\" = \"ROW\")", db, table)
}

// sendSignal inserts one signal row.
func sendSignal(t *testing.T, srv *dorissim.Server, table, id, kind, data string) {
	t.Helper()
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	harness.Exec(t, srv, fmt.Sprintf("INSERT INTO %s (`id`, `type`, `data`) VALUES (%s, %s, %s)", table, q(id), q(kind), q(data)))
}

// signalRows are the events of db.table that a signal's snapshot read.
func signalRows(evs []harness.Event, db, table, id string) []harness.Event {
	var out []harness.Event
	for _, ev := range harness.OfTable(evs, db, table) {
		if ev.Operation == "read" && ev.Meta["signal_id"] == id {
			out = append(out, ev)
		}
	}
	return out
}

// checkChainOrder checks that the binlog events of the tables named,
// which stayed in the shared windows, came in one (TSO, table, LSN, OP)
// order, and that no event came from the signal table.
func checkChainOrder(t *testing.T, evs []harness.Event, db, signals string, tables ...string) {
	t.Helper()
	var last harness.Event
	for _, ev := range evs {
		if ev.Table == signals {
			t.Fatalf("a row of the signal table was delivered: %+v", ev)
		}
		if ev.Database != db || ev.Phase != "binlog" || !contains(tables, ev.Table) {
			continue
		}
		if last.TSO != 0 && (ev.TSO < last.TSO || ev.TSO == last.TSO && ev.Table < last.Table ||
			ev.TSO == last.TSO && ev.Table == last.Table && harness.PosLess(ev.Pos(), last.Pos())) {
			t.Fatalf("shared-window order broken: %s %v after %s %v", ev.Table, ev.Pos(), last.Table, last.Pos())
		}
		last = ev
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSignalResnapshotsOneTable inserts an execute-snapshot signal while
// three tables stream: the named table's rows come again as snapshot rows
// naming the signal, while the other two stream on in order; every table
// replays to its final content and no change is delivered twice. The signal
// table itself, matched by the include pattern, is never delivered.
func TestSignalResnapshotsOneTable(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	loads := map[string]*harness.Workload{}
	for i, tbl := range []string{"a", "b", "c"} {
		harness.CreateTable(t, srv, "sig", tbl, harness.TableOpts{})
		loads[tbl] = harness.NewWorkload(srv, "sig", tbl, uint64(30+i))
		if err := loads[tbl].Insert(ctxTimeout(t, 30*time.Second), 25); err != nil {
			t.Fatal(err)
		}
	}
	harness.Exec(t, srv, signalDDL("sig", "cdc_signals"))
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['sig\..*']`, "scan_mode: initial", "batch_size: 7", "signal_table: sig.cdc_signals")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	for _, tbl := range []string{"a", "b", "c"} {
		runWorkload(t, loads[tbl], 10)
	}
	replayEquals(t, srv, col, "sig", "a", "b", "c")

	sendSignal(t, srv, "sig.cdc_signals", "resnap-1", "execute-snapshot", `{"data-collections": ["sig.b"]}`)
	// Changes go on in every table while b leaves, snapshots and rejoins.
	for range 4 {
		for _, tbl := range []string{"a", "b", "c"} {
			runWorkload(t, loads[tbl], 5)
		}
	}
	live := len(harness.TableState(t, srv, "sig", "b", "id", cols...))
	col.WaitFor(t, 60*time.Second, "the signalled snapshot of b", func(evs []harness.Event) bool {
		return len(signalRows(evs, "sig", "b", "resnap-1")) > 0
	})
	for _, tbl := range []string{"a", "b", "c"} {
		runWorkload(t, loads[tbl], 5)
	}
	evs := replayEquals(t, srv, col, "sig", "a", "b", "c")

	got := signalRows(evs, "sig", "b", "resnap-1")
	if len(got) < live/2 {
		t.Fatalf("the signalled snapshot of sig.b delivered %d rows; the table had %d live rows", len(got), live)
	}
	for _, tbl := range []string{"a", "c"} {
		for _, ev := range harness.OfTable(evs, "sig", tbl) {
			if _, ok := ev.Meta["signal_id"]; ok {
				t.Fatalf("sig.%s, not named by the signal, has a signal row: %+v", tbl, ev)
			}
		}
	}
	t.Logf("signalled snapshot rows of sig.b: %d (live rows when signalled: %d); events in all: %d", len(got), live, len(evs))
	checkChainOrder(t, evs, "sig", "cdc_signals", "a", "c")
	if lines := logs.Lines(slog.LevelInfo, `Signal "resnap-1" (execute-snapshot): table sig.b leaves the shared binlog windows`); len(lines) != 1 {
		t.Fatalf("want one line saying sig.b leaves the windows, got %v\n%s", lines, logs.All())
	}

	// A condition limits a new snapshot to the rows that match it.
	sendSignal(t, srv, "sig.cdc_signals", "resnap-2", "execute-snapshot",
		`{"data-collections": ["sig.c"], "additional-conditions": [{"data-collection": "sig.c", "filter": "id <= 10"}]}`)
	want := 0
	for id := range harness.TableState(t, srv, "sig", "c", "id", cols...) {
		if n, err := strconv.Atoi(id); err == nil && n <= 10 {
			want++
		}
	}
	if want == 0 {
		t.Fatal("sig.c has no row with id <= 10 left to check the condition on")
	}
	evs = col.WaitFor(t, 60*time.Second, "the filtered snapshot of c", func(evs []harness.Event) bool {
		return len(signalRows(evs, "sig", "c", "resnap-2")) >= want
	})
	for _, ev := range signalRows(evs, "sig", "c", "resnap-2") {
		if id, _ := strconv.Atoi(fmt.Sprint(ev.Row["id"])); id > 10 {
			t.Fatalf("the snapshot limited to id <= 10 delivered %v", ev.Row)
		}
	}
	runWorkload(t, loads["c"], 10)
	replayEquals(t, srv, col, "sig", "a", "b", "c")
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
}

// TestSignalStopSnapshot cancels a signalled snapshot in progress: the rows
// it delivered stay, no more come, and the table catches up from where it
// left the windows and rejoins them, losing no change. Signals of an
// unknown type or with malformed data are skipped with a warning naming
// their id, and change nothing.
func TestSignalStopSnapshot(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "stop", "big", harness.TableOpts{Buckets: 8})
	harness.CreateTable(t, srv, "stop", "small", harness.TableOpts{})
	big := harness.NewWorkload(srv, "stop", "big", 41)
	small := harness.NewWorkload(srv, "stop", "small", 42)
	if err := big.Insert(ctxTimeout(t, 60*time.Second), 2000); err != nil {
		t.Fatal(err)
	}
	if err := small.Insert(ctxTimeout(t, 30*time.Second), 10); err != nil {
		t.Fatal(err)
	}
	harness.Exec(t, srv, "CREATE DATABASE IF NOT EXISTS `ops`", signalDDL("ops", "signals"))
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	// A slow batching processor keeps the snapshot of big going for
	// seconds; it runs in the input, in order, unlike pipeline threads.
	in := harness.SelectYAML(srv, "tables: [stop.big, stop.small]", "scan_mode: initial", "batch_size: 5",
		"max_parallel_snapshot_splits: 1", "request_tablet_size: 1", "signal_table: ops.signals",
		"batching:\n  count: 5\n  processors:\n    - sleep:\n        duration: 3ms")
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	replayEquals(t, srv, col, "stop", "big", "small")

	sendSignal(t, srv, "ops.signals", "bad-kind", "pause-everything", `{}`)
	sendSignal(t, srv, "ops.signals", "bad-data", "execute-snapshot", `{"data-collections": "stop.big"`)
	sendSignal(t, srv, "ops.signals", "go", "execute-snapshot", `{"data-collections": ["stop.big"]}`)
	col.WaitFor(t, 60*time.Second, "the signalled snapshot of big under way", func(evs []harness.Event) bool {
		return len(signalRows(evs, "stop", "big", "go")) > 0
	})
	sendSignal(t, srv, "ops.signals", "halt", "stop-snapshot", `{"data-collections": ["stop.big"]}`)
	stopped := `Signal "halt" (stop-snapshot): the snapshot of stop.big is cancelled`
	waitLog(t, logs, slog.LevelInfo, stopped, 60*time.Second)
	runWorkload(t, big, 10)
	runWorkload(t, small, 10)
	evs := replayEquals(t, srv, col, "stop", "big", "small")
	n := len(signalRows(evs, "stop", "big", "go"))
	time.Sleep(2 * time.Second) // several windows: no more snapshot rows come
	if again := len(signalRows(col.Events(), "stop", "big", "go")); n >= 2000 || again != n {
		t.Fatalf("the stopped snapshot delivered %d rows, then %d (of 2000 and more): it was not cancelled", n, again)
	}
	t.Logf("the stopped snapshot delivered %d of about 2000 rows", n)
	for _, want := range []string{`Skipping signal "bad-kind" of signal_table ops.signals: unknown type "pause-everything"`,
		`Skipping signal "bad-data" of signal_table ops.signals: column data is not the JSON object`} {
		if lines := logs.Lines(slog.LevelWarn, want); len(lines) != 1 {
			t.Fatalf("want one warning %q, got %v\n%s", want, lines, logs.All())
		}
	}
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
}

// waitLog waits for a log line at level containing text.
func waitLog(t *testing.T, logs *harness.LogCapture, level slog.Level, text string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for len(logs.Lines(level, text)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no log line %q within %s:\n%s", text, timeout, logs.All())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSignalTableMustBeUsable stops the input, naming signal_table, when the
// table is missing or lacks the signal columns, before any window is read,
// rather than reconnecting for ever.
func TestSignalTableMustBeUsable(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "chk", "data", harness.TableOpts{})
	harness.CreateTable(t, srv, "chk", "wrong", harness.TableOpts{}) // row binlog, but not the columns of signals
	for sig, want := range map[string]string{
		"chk.missing": "signal_table chk.missing does not exist: create it",
		"chk.wrong":   "signal_table chk.wrong: column id is bigint; it must be a string type",
	} {
		t.Run(sig, func(t *testing.T) {
			logs := &harness.LogCapture{}
			in := harness.SelectYAML(srv, "tables: [chk.data]", "scan_mode: latest", "signal_table: "+sig)
			harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, &harness.Collector{})
			waitLog(t, logs, slog.LevelWarn, want, 30*time.Second)
			time.Sleep(time.Second)
			if again := logs.Lines(slog.LevelWarn, "reconnecting"); len(again) != 0 {
				t.Fatalf("the input reconnects on a signal table that cannot work, %d times in a second: %v", len(again), again[0])
			}
		})
	}
	t.Run("dropped while running", func(t *testing.T) {
		harness.Exec(t, srv, signalDDL("chk", "signals"))
		logs := &harness.LogCapture{}
		in := harness.SelectYAML(srv, "tables: [chk.data]", "scan_mode: latest", "signal_table: chk.signals")
		harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, &harness.Collector{})
		waitLog(t, logs, slog.LevelInfo, "Reading signals from chk.signals in every binlog window", 30*time.Second)
		harness.Exec(t, srv, "DROP TABLE `chk`.`signals`")
		waitLog(t, logs, slog.LevelError, "signal_table chk.signals was dropped: signals cannot be read", 30*time.Second)
	})
}

// TestSignalInLatestMode gives a stream that started without a snapshot
// (scan_mode: latest) the full state of a table on a signal: after it the
// table's events replay to its content, with no change delivered twice.
func TestSignalInLatestMode(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, "lat", "x", harness.TableOpts{})
	harness.Exec(t, srv, signalDDL("lat", "signals"))
	load := harness.NewWorkload(srv, "lat", "x", 51)
	if err := load.Insert(ctxTimeout(t, 30*time.Second), 15); err != nil {
		t.Fatal(err)
	}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, "tables: [lat.x]", "scan_mode: latest", "checkpoint_cache_key: lat", "signal_table: lat.signals")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
	harness.WaitCheckpoint(t, r, "lat")
	runWorkload(t, load, 5)
	sendSignal(t, srv, "lat.signals", "full-state", "execute-snapshot", `{"data-collections": ["lat.x"]}`)
	runWorkload(t, load, 10)
	// Rows committed in the second the stream started come as events too,
	// so the replay can match before the snapshot arrives: wait for it.
	col.WaitFor(t, 60*time.Second, "a row of the signalled snapshot", func(evs []harness.Event) bool {
		return len(signalRows(evs, "lat", "x", "full-state")) > 0
	})
	replayEquals(t, srv, col, "lat", "x")
}
