package input

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// manyTables commits, over seconds 1..4, transactions that touch several
// of the tables at once, and returns the bodies in commit order: each
// transaction's rows by table name.
func (f *windowFixture) manyTables(t *testing.T, names []string) []string {
	t.Helper()
	var want []string
	id := 0
	for sec := 1; sec <= 4; sec++ {
		for tx := 0; tx < 2; tx++ {
			var stmts []string
			var rows []string
			// Statements in reverse name order: the merge orders by table,
			// not by statement.
			for i := len(names) - 1; i >= 0; i-- {
				if (i+sec+tx)%2 == 0 {
					continue
				}
				id++
				stmts = append(stmts, fmt.Sprintf("INSERT INTO d.%s VALUES (%d), (%d), (%d)", names[i], id*10, id*10+1, id*10+2))
				rows = append([]string{fmt.Sprintf(`{"id":%d}`, id*10), fmt.Sprintf(`{"id":%d}`, id*10+1), fmt.Sprintf(`{"id":%d}`, id*10+2)}, rows...)
			}
			f.commit(t, fmt.Sprintf("10:00:0%d", sec), stmts...)
			want = append(want, rows...)
		}
	}
	return want
}

var heldTables = []string{"a", "b", "c", "d", "e", "f", "g"}

// A window over more tables than max_flight_sessions reads them in turn,
// never more than that many sessions open on the FE, and still emits every
// row once in (TSO, table, LSN, OP) order, transactions across tables
// together.
func TestWindowReadMoreTablesThanSessions(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.MaxFlightSessions = 2 }, heldTables...)
	want := f.manyTables(t, heldTables)
	dropped, err := f.read(t, heldTables, f.window(t, "10:00:00", "10:00:05"), nil)
	if err != nil || len(dropped) != 0 {
		t.Fatalf("read: dropped %v, %v", dropped, err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, want...)
	if st := f.srv.Stats(); st.FlightSessionsPeak > 2 || st.SessionsRefused != 0 {
		t.Fatalf("the FE saw %d Flight sessions at once (%d refused), max_flight_sessions is 2", st.FlightSessionsPeak, st.SessionsRefused)
	}

	// After a restart, what was delivered is not emitted again.
	for _, cut := range []int{0, len(rows) / 2, len(rows) - 1} {
		f.sink.batches, f.sink.states = nil, nil
		skip := rows[cut].pos
		if _, err := f.read(t, heldTables, f.window(t, "10:00:00", "10:00:05"), &skip); err != nil {
			t.Fatal(err)
		}
		again := f.emitted(t)
		checkOrder(t, again)
		wantBodies(t, again, want[cut+1:]...)
	}
}

// A window holding more than the input buffers is read as consecutive
// halves, each merged whole: every row still comes once and in order.
func TestWindowReadSplitsAWindowOverTheBuffer(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.MaxFlightSessions = 2 }, heldTables...)
	want := f.manyTables(t, heldTables)
	// Room for about one second of the four.
	f.wr.bufferLimit = 2000
	if _, err := f.read(t, heldTables, f.window(t, "10:00:00", "10:00:05"), nil); err != nil {
		t.Fatal(err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, want...)
	if n := len(f.lines.Lines("INFO", "reading it as two halves")); n == 0 {
		t.Fatal("the window was not split")
	}
	if st := f.srv.Stats(); st.FlightSessionsPeak > 2 {
		t.Fatalf("the FE saw %d Flight sessions at once, max_flight_sessions is 2", st.FlightSessionsPeak)
	}
}

// A one-second window over the buffer cannot be split: its tables with
// changes are read at once when there are no more of them than sessions,
// else the input stops with an error naming max_flight_sessions.
func TestWindowReadOneBusySecond(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.MaxFlightSessions = 2 }, heldTables...)
	f.commit(t, "10:00:01", "INSERT INTO d.e VALUES (5), (6), (7)", "INSERT INTO d.b VALUES (1), (2), (3)")
	f.commit(t, "10:00:01", "INSERT INTO d.b VALUES (4)")
	f.wr.bufferLimit = 1
	if _, err := f.read(t, heldTables, f.window(t, "10:00:01", "10:00:02"), nil); err != nil {
		t.Fatal(err)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, `{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":5}`, `{"id":6}`, `{"id":7}`, `{"id":4}`)
	if n := len(f.lines.Lines("INFO", "its 2 table(s) with changes are read at once")); n != 1 {
		t.Fatalf("%d lines on reading the busy tables at once, want 1", n)
	}

	f.sink.batches, f.sink.states = nil, nil
	f.commit(t, "10:00:02", "INSERT INTO d.a VALUES (8)", "INSERT INTO d.c VALUES (9)", "INSERT INTO d.g VALUES (10)")
	_, err := f.read(t, heldTables, f.window(t, "10:00:02", "10:00:03"), nil)
	if err == nil || !strings.Contains(err.Error(), "3 of its 7 tables have changes") || !strings.Contains(err.Error(), "raise max_flight_sessions to 3") {
		t.Fatalf("three busy tables over two sessions: %v, want an error naming max_flight_sessions", err)
	}
	if len(f.emitted(t)) != 0 {
		t.Fatal("rows of a window that failed were emitted")
	}
}

// A table dropped before its part of a held window is read is reported,
// and the other tables' rows are delivered.
func TestWindowReadHeldReportsADroppedTable(t *testing.T) {
	f := newWindowFixture(t, func(c *Config) { c.MaxFlightSessions = 1 }, "a", "b", "c")
	f.interleaved(t)
	f.exec(t, "DROP TABLE d.b")
	dropped, err := f.read(t, []string{"a", "b", "c"}, f.window(t, "10:00:00", "10:00:05"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dropped, []string{"d.b"}) {
		t.Fatalf("dropped %v, want [d.b]", dropped)
	}
	rows := f.emitted(t)
	checkOrder(t, rows)
	wantBodies(t, rows, `{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`)
}
