package input

import (
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// The start-up and join logs say where each table is; an operator reads
// the phase, the window and the last delivered row from them.
func TestDescribeStateNamesEveryPhase(t *testing.T) {
	st := checkpoint.New()
	st.ChainProgress("2026-12-01 10:00:00", "2026-12-01 10:00:05", checkpoint.Pos{TSO: 7, Table: "db.a", LSN: 3, Op: 1})
	st.AddTable("db.a", false, "", 1)
	st.AddTable("db.b", true, "", 1)
	st.SnapshotTabletsDone("db.b", []int64{10, 11})
	st.AddTable("db.c", true, "2026-12-01 09:59:00", 1)
	st.AddTable("db.d", true, "2026-12-01 09:58:00", 1)
	st.FinishSnapshot("db.d") // joined late: catches up from its start
	st.AddTable("db.e", true, "", 1)
	st.Tables["db.e"].Phase = checkpoint.PhaseDone

	want := "binlog window [2026-12-01 10:00:00, 2026-12-01 10:00:05) after tso 7 table db.a lsn 3 op 1; " +
		"db.a binlog; " +
		"db.b snapshot, 2 tablets done; " +
		"db.c snapshot, 0 tablets done, its binlog from 2026-12-01 09:59:00; " +
		"db.d catching up, from 2026-12-01 09:58:00; " +
		"db.e done"
	if got := describeState(st); got != want {
		t.Fatalf("describeState =\n%s\nwant\n%s", got, want)
	}
}

func TestDescribeWindowForms(t *testing.T) {
	for _, tc := range []struct {
		w    checkpoint.Window
		want string
	}{
		{checkpoint.Window{Start: "2026-12-01 10:00:00"}, "from 2026-12-01 10:00:00"},
		{checkpoint.Window{Start: "2026-12-01 10:00:00", End: "2026-12-01 10:00:05"}, "window [2026-12-01 10:00:00, 2026-12-01 10:00:05)"},
	} {
		if got := describeWindow(&tc.w); got != tc.want {
			t.Errorf("describeWindow(%+v) = %q, want %q", tc.w, got, tc.want)
		}
	}
	// A catching-up table with rows delivered names its last row too.
	st := checkpoint.New()
	st.StartChain("2026-12-01 10:00:10")
	st.AddTable("db.a", true, "2026-12-01 10:00:00", 1)
	st.FinishSnapshot("db.a")
	st.CatchUpProgress("db.a", "2026-12-01 10:00:00", "2026-12-01 10:00:10", checkpoint.Pos{TSO: 9, Table: "db.a", LSN: 1})
	want := "catching up, window [2026-12-01 10:00:00, 2026-12-01 10:00:10) after tso 9 table db.a lsn 1 op 0"
	if got := describeTable(st.Tables["db.a"]); got != want {
		t.Fatalf("describeTable = %q, want %q", got, want)
	}
	if got := describeState(checkpoint.New()); got != "" {
		t.Fatalf("an empty snapshot-only state is described as %q, want nothing", got)
	}
}
