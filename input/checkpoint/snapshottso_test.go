package checkpoint

import (
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// The snapshot TSO is kept across a save and a load, so a restarted split
// reads as of the same TSO; a checkpoint written before it existed loads
// with none.
func TestSnapshotTSORoundTrip(t *testing.T) {
	st := New()
	start := mustBound("2026-12-06 05:00:00")
	st.StartChain(start)
	st.AddTable("db.t", true, Bound{}, 10)
	x := doris.Compose(start.Ms()+999, 1<<18-1)
	st.SetSnapshotTSO("db.t", x)
	b, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"snapshot_tso":`) {
		t.Fatalf("encoded without snapshot_tso: %s", b)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tables["db.t"].SnapshotTSO != x {
		t.Fatalf("snapshot_tso read back as %d, want %d", got.Tables["db.t"].SnapshotTSO, x)
	}
	old := `{"version":3,"window_zone":"UTC","stream":{"start":"2026-12-06 05:00:00"},"tables":{"db.t":{"phase":"snapshot","max_tablet":10}},"seq":1,"saved_at":"2026-12-06T05:00:01Z"}`
	legacy, err := Decode([]byte(old))
	if err != nil {
		t.Fatalf("a checkpoint without snapshot_tso: %v", err)
	}
	if _, ok := legacy.SnapshotFloor("db.t"); ok {
		t.Fatal("a table without snapshot_tso has a snapshot floor")
	}
	bad := strings.Replace(old, `"max_tablet":10`, `"max_tablet":10,"snapshot_tso":-1`, 1)
	if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "snapshot_tso") {
		t.Fatalf("a negative snapshot_tso: %v, want an error naming it", err)
	}
}

// The floor covers every row of the table up to the TSO and none after;
// the chain forgets it once it has finished a window past it, and a table
// catching up once its catch-up window ended past it.
func TestSnapshotFloorAndForget(t *testing.T) {
	start := mustBound("2026-12-06 05:00:00")
	x := doris.Compose(start.Ms()+999, 1<<18-1)
	st := New()
	st.StartChain(start)
	st.AddTable("db.a", true, Bound{}, 1)
	st.SetSnapshotTSO("db.a", x)
	floor, ok := st.SnapshotFloor("db.a")
	if !ok {
		t.Fatal("no floor")
	}
	at := Pos{TSO: x, Table: "db.a", LSN: 1 << 40, Op: 3}
	after := Pos{TSO: x + 1, Table: "db.a"}
	if floor.Less(at) || !floor.Less(after) {
		t.Fatalf("floor %+v: want %+v at or before it and %+v after", floor, at, after)
	}
	st.FinishSnapshot("db.a")
	st.AdvanceChain(start) // an empty window [start, start) keeps it
	if st.Tables["db.a"].SnapshotTSO != x {
		t.Fatal("forgotten before a window past it was read")
	}
	st.AdvanceChain(mustBound("2026-12-06 05:00:01"))
	if st.Tables["db.a"].SnapshotTSO != 0 {
		t.Fatal("kept after the chain read past it")
	}

	st.AddTable("db.b", true, start, 1)
	st.SetSnapshotTSO("db.b", x)
	st.FinishSnapshot("db.b") // catches up from start to the chain
	if st.Tables["db.b"].Phase != PhaseCatchUp || st.Tables["db.b"].SnapshotTSO != x {
		t.Fatalf("after its snapshot: %+v", st.Tables["db.b"])
	}
	st.FinishCatchUp("db.b", st.Stream.Start)
	if st.Tables["db.b"].Phase != PhaseBinlog || st.Tables["db.b"].SnapshotTSO != 0 {
		t.Fatalf("after catching up past it: %+v", st.Tables["db.b"])
	}
}
