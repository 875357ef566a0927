package input

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// testCoordinator is a coordinator over e that starts at st, follows keys,
// takes the Doris time from clock, and emits to a recording sink.
func testCoordinator(t *testing.T, e *simEnv, st *checkpoint.State, clock dorisClock, keys ...string) (*coordinator, *recordingSink) {
	t.Helper()
	sp := &startPoint{st: st, skipped: newSkippedTables(e.log)}
	for _, k := range keys {
		name, err := parseTableName(k)
		if err != nil {
			t.Fatal(err)
		}
		sp.tables = append(sp.tables, &tableInfo{name: name, c: e.c})
	}
	env := runEnv{conf: e.conf, log: e.log, m: e.m, c: e.c, clock: clock, planned: &windowplan.Ends{}, maxRows: e.conf.BatchSize}
	co := newCoordinator(env, sp, e.cat)
	sink := &recordingSink{}
	co.em = &emitter{run: sink, progress: st.Clone()}
	co.wr = newWindowReader(co)
	// A failing snapshot ends the run by cancelling it: the test sees it.
	co.snaps.fail = func(err error) { t.Errorf("the run failed: %v", err) }
	t.Cleanup(co.snaps.wait)
	return co, sink
}

func tableKeys(tables []*tableInfo) []string {
	var out []string
	for _, t := range tables {
		out = append(out, t.name.key)
	}
	return out
}

// emittedTables is the emitted position's table phases.
func emittedTables(co *coordinator) map[string]checkpoint.Table {
	out := map[string]checkpoint.Table{}
	co.em.view(func(st *checkpoint.State) {
		for k, t := range st.Tables {
			out[k] = *t
		}
	})
	return out
}

func TestPhaseTablesAreFollowedOnesInNameOrder(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "initial"})
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:00"))
	for _, k := range []string{"d.c", "d.a", "d.x"} {
		st.AddTable(k, false, checkpoint.Bound{}, 1)
	}
	st.AddTable("d.b", true, checkpoint.Bound{}, 1)
	// d.x is in the position but not followed: a table just dropped.
	co, _ := testCoordinator(t, e, st, &fakeClock{}, "d.c", "d.b", "d.a")
	if got := tableKeys(co.phaseTables(checkpoint.PhaseBinlog)); !slices.Equal(got, []string{"d.a", "d.c"}) {
		t.Fatalf("binlog tables %v, want d.a, d.c", got)
	}
	if got := tableKeys(co.phaseTables(checkpoint.PhaseSnapshot)); !slices.Equal(got, []string{"d.b"}) {
		t.Fatalf("snapshot tables %v, want d.b", got)
	}
	if got := co.followedKeys(); !slices.Equal(got, []string{"d.a", "d.b", "d.c"}) {
		t.Fatalf("followed %v", got)
	}
}

// The first run applies what startup found: stored tables no longer there
// leave the position, newly selected ones join it.
func TestApplyResumeChanges(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "latest"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL, "CREATE TABLE d.b"+binlogDDL)
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:00"))
	st.AddTable("d.a", false, checkpoint.Bound{}, 1)
	st.AddTable("d.gone", false, checkpoint.Bound{}, 1)
	co, sink := testCoordinator(t, e, st, &fakeClock{}, "d.a", "d.gone")
	co.pendingRemovals = []string{"d.gone"}
	co.pendingAdds = []*tableInfo{{name: newTableName("d", "b"), c: e.c}}
	if err := co.applyResumeChanges(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	got := emittedTables(co)
	if _, ok := got["d.gone"]; ok || len(got) != 2 {
		t.Fatalf("position tables %v, want d.a and d.b", got)
	}
	if b := got["d.b"]; b.Phase != checkpoint.PhaseBinlog || b.MaxTablet <= 0 || !b.Start.IsZero() {
		t.Fatalf("d.b joined as %+v, want binlog from the next window, with its tablets", b)
	}
	if co.table("d.gone") != nil || co.table("d.b") == nil {
		t.Fatalf("followed %v, want d.a and d.b", co.followedKeys())
	}
	if len(sink.states) != 2 || co.pendingAdds != nil || co.pendingRemovals != nil {
		t.Fatalf("%d positions emitted, pending %v %v; want one per change, none left", len(sink.states), co.pendingAdds, co.pendingRemovals)
	}
	if n := len(e.lines.Lines("WARN", "no longer selected or no longer exist leave the stream and the checkpoint: 1 table: d.gone")); n != 1 {
		t.Errorf("%d warnings about d.gone, want 1", n)
	}
	if n := len(e.lines.Lines("DEBUG", "Table d.gone is in the checkpoint but no longer selected")); n != 1 {
		t.Errorf("%d debug lines about d.gone, want 1", n)
	}
	if n := len(e.lines.Lines("INFO", "Tables newly selected join the stream: 1 table: d.b")); n != 1 {
		t.Errorf("%d join logs naming d.b, want 1", n)
	}
	if n := len(e.lines.Lines("DEBUG", "Table d.b joins the stream: binlog")); n != 1 {
		t.Errorf("%d debug join logs for d.b, want 1", n)
	}
	// A table that vanished between startup and the run stops it.
	co.pendingAdds = []*tableInfo{{name: newTableName("d", "missing"), c: e.c}}
	if err := co.applyResumeChanges(testCtx(t)); err == nil || !strings.Contains(err.Error(), "d.missing") {
		t.Fatalf("adding a missing table: %v, want an error naming it", err)
	}
}

// A table that joins a running chain with a snapshot phase starts its own
// binlog at the Doris second before the current one, without waiting, is
// snapshotted as of the last TSO before the current second, and then
// catches up from its start.
func TestAddTableWithSnapshotCatchesUpFromItsStart(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "initial"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL, "INSERT INTO d.a VALUES (1), (2)")
	time.Sleep(1100 * time.Millisecond) // the rows are in a past Doris second
	now := windowplan.BoundAt(time.Now().UnixMilli())
	st := checkpoint.New()
	st.StartChain((now - 30_000).Stored())
	co, sink := testCoordinator(t, e, st, &fakeClock{answers: []windowplan.Bound{now}})
	tb := &tableInfo{name: newTableName("d", "a"), c: e.c}
	if err := co.addTable(testCtx(t), tb); err != nil {
		t.Fatal(err)
	}
	co.snaps.wait() // the sink is the snapshot's until it finished
	start := (now - 1000).Stored()
	if first := sink.states[0].Tables["d.a"]; first.Phase != checkpoint.PhaseSnapshot || first.Start != start || first.SnapshotTSO != doris.LastTSOBefore(now.Ms()) {
		t.Fatalf("d.a joined as %+v, want a snapshot as of the last TSO before %s whose binlog starts at %s", first, now, start)
	}
	got := emittedTables(co)["d.a"]
	if got.Phase != checkpoint.PhaseCatchUp || got.CatchUp == nil || got.CatchUp.Start != start {
		t.Fatalf("after its snapshot d.a is %+v, want catching up from %s", got, start)
	}
	rows := 0
	for _, b := range sink.batches {
		rows += len(b)
	}
	if rows != 2 {
		t.Fatalf("the snapshot emitted %d rows, want 2", rows)
	}
}

// Without a Doris time the new table's start is unknown: it does not join.
func TestAddTableWithoutDorisTime(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "initial"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:00"))
	down := errors.New("tso unavailable")
	co, sink := testCoordinator(t, e, st, &fakeClock{err: down})
	err := co.addTable(testCtx(t), &tableInfo{name: newTableName("d", "a"), c: e.c})
	if !errors.Is(err, down) || !strings.Contains(err.Error(), "resolving the binlog start of new table d.a") {
		t.Fatalf("addTable = %v, want the clock's error naming the table", err)
	}
	if len(sink.states) != 0 || co.table("d.a") != nil {
		t.Fatalf("a table without a start joined: %d positions, followed %v", len(sink.states), co.followedKeys())
	}
}

// Dropped tables leave the position and the followed set, each with a
// warning; nothing dropped changes nothing.
func TestDropTables(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "latest"})
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:00"))
	for _, k := range []string{"d.a", "d.b", "d.c"} {
		st.AddTable(k, false, checkpoint.Bound{}, 1)
	}
	co, sink := testCoordinator(t, e, st, &fakeClock{}, "d.a", "d.b", "d.c")
	if err := co.dropTables(testCtx(t), nil); err != nil || len(sink.states) != 0 {
		t.Fatalf("dropping nothing: %v, %d positions", err, len(sink.states))
	}
	if err := co.dropTables(testCtx(t), []string{"d.a", "d.c"}); err != nil {
		t.Fatal(err)
	}
	if got := emittedTables(co); len(got) != 1 || got["d.b"].Phase != checkpoint.PhaseBinlog {
		t.Fatalf("position tables %v, want d.b only", got)
	}
	if got := co.followedKeys(); !slices.Equal(got, []string{"d.b"}) {
		t.Fatalf("followed %v, want d.b", got)
	}
	if n := len(e.lines.Lines("WARN", "was dropped: it leaves the stream")); n != 2 {
		t.Fatalf("%d drop warnings, want 2", n)
	}
}
