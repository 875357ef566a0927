package input

import (
	"fmt"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// The start-up line says where the stream is and how many tables are in
// each phase, naming the first few; the debug lines say where each table
// is: its phase, its window and the last delivered row.
func TestSummarizeStateCountsPhasesAndDebugNamesEachTable(t *testing.T) {
	st := checkpoint.New()
	st.ChainProgress(ckb("2026-12-01 10:00:00"), ckb("2026-12-01 10:00:05"), checkpoint.Pos{TSO: 7, Table: "db.a", LSN: 3, Op: 1})
	st.AddTable("db.a", false, checkpoint.Bound{}, 1)
	st.AddTable("db.b", true, checkpoint.Bound{}, 1)
	st.SnapshotTabletsDone("db.b", []int64{10, 11})
	st.AddTable("db.c", true, ckb("2026-12-01 09:59:00"), 1)
	st.AddTable("db.d", true, ckb("2026-12-01 09:58:00"), 1)
	st.FinishSnapshot("db.d") // joined late: catches up from its start
	st.AddTable("db.e", true, checkpoint.Bound{}, 1)
	st.Tables["db.e"].Phase = checkpoint.PhaseDone
	for i := range 7 {
		st.AddTable(fmt.Sprintf("db.z%d", i), false, checkpoint.Bound{}, 1)
	}

	want := "binlog window [2026-12-01 10:00:00, 2026-12-01 10:00:05) after tso 7 table db.a lsn 3 op 1; " +
		"in snapshot 2 tables: db.b, db.c; " +
		"catching up 1 table: db.d; " +
		"in binlog 8 tables: db.a, db.z0, db.z1, db.z2, db.z3 and 3 more; " +
		"done 1 table: db.e"
	if got := summarizeState(st); got != want {
		t.Fatalf("summarizeState =\n%s\nwant\n%s", got, want)
	}
	if got := summarizeState(checkpoint.New()); got != "no tables" {
		t.Fatalf("an empty snapshot-only state is summarised as %q, want no tables", got)
	}

	log, lines := captureLogger(t)
	logTablesAtDebug(log, st, "at the start")
	for _, want := range []string{
		"Table db.a at the start: binlog",
		"Table db.b at the start: snapshot, 2 tablets done",
		"Table db.c at the start: snapshot, 0 tablets done, its binlog from 2026-12-01 09:59:00",
		"Table db.d at the start: catching up, from 2026-12-01 09:58:00",
		"Table db.e at the start: done",
		"Table db.z6 at the start: binlog",
	} {
		if n := len(lines.Lines("DEBUG", want)); n != 1 {
			t.Errorf("%d debug lines %q, want 1", n, want)
		}
	}
	if n := len(lines.Lines("DEBUG", "")); n != len(st.Tables) {
		t.Errorf("%d debug lines for %d tables, want one each", n, len(st.Tables))
	}
}

func TestDescribeWindowForms(t *testing.T) {
	for _, tc := range []struct {
		w    checkpoint.Window
		want string
	}{
		{checkpoint.Window{Start: ckb("2026-12-01 10:00:00")}, "from 2026-12-01 10:00:00"},
		{checkpoint.Window{Start: ckb("2026-12-01 10:00:00"), End: ckb("2026-12-01 10:00:05")}, "window [2026-12-01 10:00:00, 2026-12-01 10:00:05)"},
	} {
		if got := describeWindow(&tc.w); got != tc.want {
			t.Errorf("describeWindow(%+v) = %q, want %q", tc.w, got, tc.want)
		}
	}
	// A catching-up table with rows delivered names its last row too.
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:10"))
	st.AddTable("db.a", true, ckb("2026-12-01 10:00:00"), 1)
	st.FinishSnapshot("db.a")
	st.CatchUpProgress("db.a", ckb("2026-12-01 10:00:00"), ckb("2026-12-01 10:00:10"), checkpoint.Pos{TSO: 9, Table: "db.a", LSN: 1})
	want := "catching up, window [2026-12-01 10:00:00, 2026-12-01 10:00:10) after tso 9 table db.a lsn 1 op 0"
	if got := describeTable(st.Tables["db.a"]); got != want {
		t.Fatalf("describeTable = %q, want %q", got, want)
	}
}
