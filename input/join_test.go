package input

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// restartFrom is the position a restart after st starts from: st through
// a save and a load, as the checkpoint store keeps it.
func restartFrom(t *testing.T, st *checkpoint.State) *checkpoint.State {
	t.Helper()
	b, err := checkpoint.Encode(st)
	if err != nil {
		t.Fatalf("saving the position: %v", err)
	}
	out, err := checkpoint.Decode(b)
	if err != nil {
		t.Fatalf("loading the position: %v", err)
	}
	return out
}

// changesOf lists the binlog rows of batches as "table:id", in order;
// snapshot rows (operation read) are left out.
func changesOf(t *testing.T, batches []service.MessageBatch) []string {
	t.Helper()
	var out []string
	for _, b := range batches {
		for _, m := range b {
			if op, _ := m.MetaGet("operation"); op == "read" {
				continue
			}
			table, _ := m.MetaGet("table")
			raw, err := m.AsBytes()
			if err != nil {
				t.Fatal(err)
			}
			id := strings.TrimSuffix(strings.TrimPrefix(string(raw), `{"id":`), "}")
			out = append(out, table+":"+id)
		}
	}
	return out
}

// A table created while the stream runs is found by discovery; its snapshot
// (held back here) outlasts the chain's window [0s, 3s), which passes the
// table's start at 1s (the second before the discovery's Doris time, 2s). The first run then stops in the middle of window
// [3s, 6s), after d.a's row of 4.5s. The second run finishes the table's
// snapshot before its chain emits anything, and stops too. The third goes
// on from there: the table must not join the resumed window, whose read
// skips everything up to 4.5s, or its row of 3.5s is never delivered. Each
// change of both tables comes out exactly once.
func TestTableFoundMidWindowJoinsAfterARestart(t *testing.T) {
	base := catchUpBase
	clk := &simClock{now: base}
	e := newSimEnv(t, dorissim.Config{Clock: clk.Now}, &Config{ScanMode: "initial", Selection: includeSelection(`^d\.`)},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
	setClock := func(ms int) { clk.set(base.Add(time.Duration(ms) * time.Millisecond)) }
	setClock(500)
	e.exec(t, "INSERT INTO d.a VALUES (1)")
	setClock(1000)
	e.exec(t, "CREATE TABLE d.t"+binlogDDL)
	setClock(1200)
	e.exec(t, "INSERT INTO d.t VALUES (100)") // before its snapshot TSO: only in its snapshot
	setClock(2500)
	if err := e.srv.ExecTx(testCtx(t), "INSERT INTO d.a VALUES (2)", "INSERT INTO d.t VALUES (101)"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		ms  int
		sql string
	}{
		{3500, "INSERT INTO d.t VALUES (102)"}, // in [3s, 6s), before the chain's last row there
		{4500, "INSERT INTO d.a VALUES (3)"},   // the chain's last row before the first stop
		{4600, "INSERT INTO d.t VALUES (103)"},
		{5500, "INSERT INTO d.a VALUES (4)"},
		{6500, "INSERT INTO d.t VALUES (104)"},
		{7500, "INSERT INTO d.a VALUES (5)"},
	} {
		setClock(w.ms)
		e.exec(t, w.sql)
	}
	setClock(20_000)
	var delivered []service.MessageBatch

	// Run 1: the chain at 0s follows d.a; discovery finds d.t at 2s, whose
	// binlog starts at 1s and leaves out what its snapshot holds (up to
	// 2s), and its snapshot waits for a free slot.
	start := checkpoint.New()
	start.StartChain(at(0))
	start.AddTable("d.a", false, checkpoint.Bound{}, 0) // its tablets not yet seen: discovery notes them
	run1, stop1 := context.WithCancel(testCtx(t))
	co, sink := testCoordinator(t, e, start, &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(2)), windowplan.BoundOf(at(20))}}, "d.a")
	co.wr.maxRows = 1
	co.planned.Add(windowplan.BoundOf(at(3)))
	co.planned.Add(windowplan.BoundOf(at(6)))
	co.snaps.sem <- struct{}{}
	if err := (&discoverer{co: co}).run(run1); err != nil {
		t.Fatal(err)
	}
	if got := emittedTables(co)["d.t"]; got.Phase != checkpoint.PhaseSnapshot || got.Start != at(1) {
		t.Fatalf("discovery added d.t as %+v, want a snapshot with its binlog from %s", got, at(1))
	}
	ch := &chain{co: co}
	for range 2 {
		if err := ch.next(run1); err != nil {
			t.Fatal(err)
		}
	}
	stopAt := -1
	for i, st := range sink.states {
		if w := st.Stream; w.Start == at(3) && w.Last != nil && w.Last.Table == "d.a" && slices.Equal(changesOf(t, sink.batches[i:i+1]), []string{"a:3"}) {
			stopAt = i
		}
	}
	if stopAt < 0 {
		t.Fatalf("run 1 emitted no position in window [%s, %s) after d.a's row 3: %v", at(3), at(6), changesOf(t, sink.batches))
	}
	stop1()
	<-co.snaps.sem
	co.snaps.wait()
	delivered = append(delivered, sink.batches[:stopAt+1]...)
	committed := restartFrom(t, sink.states[stopAt])

	// Run 2: d.t's snapshot finishes while the chain stands in [3s, 6s).
	co, sink = testCoordinator(t, e, committed, &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(20))}}, "d.a", "d.t")
	co.snaps.startPending(testCtx(t))
	co.snaps.wait()
	last := sink.states[len(sink.states)-1]
	if got := last.Tables["d.t"]; got.Phase != checkpoint.PhaseCatchUp || last.Stream.Last == nil {
		t.Fatalf("after run 2 d.t is %+v and the chain %+v; want d.t catching up and the chain in the middle of its window", got, last.Stream)
	}
	delivered = append(delivered, sink.batches...)
	committed = restartFrom(t, last)

	// Run 3 goes on until the chain is past every change.
	co, sink = testCoordinator(t, e, committed, &fakeClock{answers: []windowplan.Bound{windowplan.BoundOf(at(20))}}, "d.a", "d.t")
	co.wr.maxRows = 1
	co.planned.Add(windowplan.BoundOf(at(9)))
	ch = &chain{co: co}
	for i := 0; ; i++ {
		var stream checkpoint.Bound
		co.em.view(func(st *checkpoint.State) { stream = st.Stream.Start })
		if stream == at(9) {
			break
		}
		if i == 3 {
			t.Fatalf("run 3: the chain did not reach %s, it is at %s", at(9), stream)
		}
		if err := co.catchUp(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		if err := ch.next(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
	if got := emittedTables(co)["d.t"]; got.Phase != checkpoint.PhaseBinlog {
		t.Errorf("after run 3 d.t is %+v, want it in the chain", got)
	}
	delivered = append(delivered, sink.batches...)

	got := changesOf(t, delivered)
	for _, table := range []string{"a", "t"} {
		var mine []string
		for _, c := range got {
			if strings.HasPrefix(c, table+":") {
				mine = append(mine, c)
			}
		}
		want := map[string][]string{"a": {"a:1", "a:2", "a:3", "a:4", "a:5"}, "t": {"t:101", "t:102", "t:103", "t:104"}}[table]
		if !slices.Equal(mine, want) {
			t.Errorf("d.%s's changes came out as %v over the three runs, want %v: each once, in order", table, mine, want)
		}
	}
}
