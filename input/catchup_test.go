package input

import (
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// catchUpBase is the first second of the catch-up tests' binlogs.
var catchUpBase = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// at is the bound s seconds after catchUpBase.
func at(s int) checkpoint.Bound {
	return windowplan.BoundAt(catchUpBase.Add(time.Duration(s) * time.Second).UnixMilli()).Stored()
}

// catchUpEnv has table d.a with rows committed at catchUpBase+1s (id 1)
// and +2s (id 2); the simulator's clock then stands at +20s.
func catchUpEnv(t *testing.T) *simEnv { return catchUpEnvWith(t, nil) }

// catchUpEnvWith is catchUpEnv, with more written at +1.5s by more.
func catchUpEnvWith(t *testing.T, more func(e *simEnv)) *simEnv {
	clk := &simClock{now: catchUpBase}
	e := newSimEnv(t, dorissim.Config{Clock: clk.Now}, &Config{ScanMode: "initial"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
	clk.set(catchUpBase.Add(1200 * time.Millisecond))
	e.exec(t, "INSERT INTO d.a VALUES (1)")
	if more != nil {
		clk.set(catchUpBase.Add(1500 * time.Millisecond))
		more(e)
	}
	clk.set(catchUpBase.Add(2200 * time.Millisecond))
	e.exec(t, "INSERT INTO d.a VALUES (2)")
	clk.set(catchUpBase.Add(20 * time.Second))
	return e
}

// catchingUp is a position whose chain starts at chainAt and whose d.a
// catches up in own.
func catchingUp(chainAt checkpoint.Bound, own checkpoint.Window) *checkpoint.State {
	st := checkpoint.New()
	st.StartChain(chainAt)
	st.AddTable("d.a", true, own.Start, 1)
	st.FinishSnapshot("d.a")
	st.Tables["d.a"].CatchUp = &own
	return st
}

func emittedIDs(sink *recordingSink) []string {
	var ids []string
	for _, b := range sink.batches {
		for _, m := range b {
			raw, _ := m.AsBytes()
			ids = append(ids, string(raw))
		}
	}
	return ids
}

// A table whose snapshot finished reads its own binlog from its start up to
// the chain's start, and then joins the chain.
func TestCatchUpReadsToTheChainAndJoins(t *testing.T) {
	e := catchUpEnv(t)
	co, sink := testCoordinator(t, e, catchingUp(at(5), checkpoint.Window{Start: at(0)}), &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(20))}}, "d.a")
	if err := co.catchUp(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	ids := emittedIDs(sink)
	if len(ids) != 2 || !strings.Contains(ids[0], `"id":1`) || !strings.Contains(ids[1], `"id":2`) {
		t.Fatalf("caught up rows %v, want ids 1 and 2 in commit order", ids)
	}
	if got := emittedTables(co)["d.a"]; got.Phase != checkpoint.PhaseBinlog || got.CatchUp != nil {
		t.Fatalf("after catching up d.a is %+v, want it in the chain", got)
	}
	// The rows' position is inside the catch-up window, not the chain's.
	var rowsAt *checkpoint.State
	for i, b := range sink.batches {
		if len(b) > 0 {
			rowsAt = sink.states[i]
		}
	}
	cu := rowsAt.Tables["d.a"].CatchUp
	if cu == nil || cu.Start != at(0) || cu.End != at(5) || cu.Last == nil || rowsAt.Stream.Start != at(5) {
		t.Fatalf("the rows' position is %+v / %+v, want catch-up window [%s, %s) with its last row", rowsAt.Tables["d.a"], rowsAt.Stream, at(0), at(5))
	}
	if n := len(e.lines.Lines("DEBUG", "Table d.a caught up to "+at(5).String())); n != 1 {
		t.Errorf("%d caught-up logs, want 1", n)
	}
}

// A window chosen before a restart is read to its own end, after the row
// delivered last; when the chain is past it, the table catches up the rest
// next, from that end.
func TestCatchUpResumesItsWindow(t *testing.T) {
	e := catchUpEnv(t)
	st := catchingUp(at(5), checkpoint.Window{Start: at(0)})
	// A first pass, one row per batch, delivered id 1 in [0, 3).
	co, sink := testCoordinator(t, e, st, &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(20))}}, "d.a")
	co.wr.maxRows = 1
	if err := co.catchUp(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	var first checkpoint.Pos
	for i, b := range sink.batches {
		if len(b) > 0 {
			first = *sink.states[i].Tables["d.a"].CatchUp.Last
			break
		}
	}
	resumed := catchingUp(at(5), checkpoint.Window{Start: at(0), End: at(3), Last: &first})
	co, sink = testCoordinator(t, e, resumed, &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(20))}}, "d.a")
	if err := co.catchUp(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if ids := emittedIDs(sink); len(ids) != 1 || !strings.Contains(ids[0], `"id":2`) {
		t.Fatalf("resumed catch-up emitted %v, want only id 2 (id 1 was delivered)", ids)
	}
	got := emittedTables(co)["d.a"]
	if got.Phase != checkpoint.PhaseCatchUp || got.CatchUp == nil || got.CatchUp.Start != at(3) || !got.CatchUp.End.IsZero() {
		t.Fatalf("after its window d.a is %+v, want it catching up from %s", got, at(3))
	}
}

// A table whose start the chain has not reached yet waits; nothing is read.
func TestCatchUpWaitsForTheChain(t *testing.T) {
	e := catchUpEnv(t)
	co, sink := testCoordinator(t, e, catchingUp(at(5), checkpoint.Window{Start: at(6)}), &fakeClock{}, "d.a")
	if err := co.catchUp(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if len(sink.states) != 0 || emittedTables(co)["d.a"].Phase != checkpoint.PhaseCatchUp {
		t.Fatalf("a table ahead of the chain emitted %d positions, phase %s; want it to wait", len(sink.states), emittedTables(co)["d.a"].Phase)
	}
}

// A table dropped while it catches up leaves the stream and the position.
func TestCatchUpDropsAGoneTable(t *testing.T) {
	e := catchUpEnv(t)
	e.exec(t, "DROP TABLE d.a")
	co, _ := testCoordinator(t, e, catchingUp(at(5), checkpoint.Window{Start: at(0)}), &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(20))}}, "d.a")
	if err := co.catchUp(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if got := emittedTables(co); len(got) != 0 || co.table("d.a") != nil {
		t.Fatalf("after d.a was dropped the position has %v, followed %v; want none", got, co.followedKeys())
	}
}

// A chain without a start stops the catch-up with the field named, rather
// than reading from the epoch. (Malformed bound text never gets this far:
// the checkpoint refuses it where it is decoded.)
func TestCatchUpRejectsAnUnsetChainStart(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{ScanMode: "initial"})
	st := catchingUp(at(5), checkpoint.Window{Start: at(0)})
	st.Stream.Start = checkpoint.Bound{}
	co, _ := testCoordinator(t, e, st, &fakeClock{}, "d.a")
	if err := co.catchUp(testCtx(t)); err == nil || !strings.Contains(err.Error(), "binlog stream start") {
		t.Errorf("unset chain start: %v, want an error saying %q", err, "binlog stream start")
	}
}

// Tables with the same catch-up window are read as one merged window: their
// rows come out in commit order across the tables, every batch records its
// last row as the progress of both, and both join the chain together. A
// table with other progress is read on its own.
func TestCatchUpReadsTablesOfOneWindowTogether(t *testing.T) {
	e := catchUpEnvWith(t, func(e *simEnv) {
		e.exec(t, "CREATE TABLE d.b"+binlogDDL, "CREATE TABLE d.c"+binlogDDL, "INSERT INTO d.b VALUES (10)", "INSERT INTO d.c VALUES (20)")
	})
	st := catchingUp(at(5), checkpoint.Window{Start: at(0)})
	for _, key := range []string{"d.b", "d.c"} {
		st.AddTable(key, true, at(0), 1)
		st.FinishSnapshot(key)
		st.Tables[key].CatchUp = &checkpoint.Window{Start: at(0)}
	}
	// d.c delivered its row before a restart: it reads on its own, after it.
	delivered := checkpoint.Pos{TSO: 1 << 62, Table: "d.c"}
	st.Tables["d.c"].CatchUp.Last = &delivered
	co, sink := testCoordinator(t, e, st, &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(20))}}, "d.a", "d.b", "d.c")
	groups, err := catchUpGroups(co.em, co.phaseTables(checkpoint.PhaseCatchUp))
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || len(groups[0].tables) != 2 || groups[0].tables[0].name.key != "d.a" || groups[0].tables[1].name.key != "d.b" ||
		len(groups[1].tables) != 1 || groups[1].last == nil {
		t.Fatalf("groups %+v, want d.a with d.b, then d.c on its own", groups)
	}
	if err := co.catchUp(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	ids := emittedIDs(sink)
	if len(ids) != 3 || !strings.Contains(ids[0], `"id":1`) || !strings.Contains(ids[1], `"id":10`) || !strings.Contains(ids[2], `"id":2`) {
		t.Fatalf("caught up rows %v, want ids 1, 10, 2 in commit order and nothing of d.c", ids)
	}
	for i, b := range sink.batches {
		if len(b) == 0 {
			continue
		}
		a, bb := sink.states[i].Tables["d.a"].CatchUp, sink.states[i].Tables["d.b"].CatchUp
		if a == nil || bb == nil || a.Last == nil || bb.Last == nil || *a.Last != *bb.Last {
			t.Fatalf("batch %d: progress d.a %+v, d.b %+v; want both at the batch's last row", i, a, bb)
		}
	}
	for _, key := range []string{"d.a", "d.b", "d.c"} {
		if got := emittedTables(co)[key]; got.Phase != checkpoint.PhaseBinlog {
			t.Errorf("after catching up %s is %+v, want it in the chain", key, got)
		}
	}
}
