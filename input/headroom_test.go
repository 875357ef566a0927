package input

import (
	"strconv"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// The lag keeps its milliseconds: at a 1 s poll whole seconds read 0.
func TestLagHasMillisecondResolution(t *testing.T) {
	m, capt := capturedMetrics(t)
	now := time.Date(2026, 12, 1, 10, 0, 1, 500_000_000, time.UTC) // a fixed clock: no timing in the test
	m.ackedWindowEndMs.Store(now.UnixMilli() - 1500)
	m.setLag(now)
	lag, set := capt.gaugeFloat(metricLag)
	if !set || lag < 1.5 || lag >= 2 || lag != 1.5 {
		t.Fatalf("lag %v s (set %v) 1.5 s after the committed window end, want 1.5 s to the millisecond", lag, set)
	}
}

// The headroom of a table is its TTL minus the age of its position: the
// chain's start for a streaming table, its catch-up window's start while
// it catches up; the minimum is over the tables that have one.
func TestRetentionHeadroomPerTable(t *testing.T) {
	m, capt := capturedMetrics(t)
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := start.Add(10*time.Second + 500*time.Millisecond)
	m.headroom.now = func() time.Time { return now }
	m.headroom.noteTTL("d.a", 3600)
	m.headroom.noteTTL("d.b", 600)
	m.headroom.noteTTL("d.forever", 0)
	st := checkpoint.New()
	st.StartChain(checkpoint.BoundAt(start.UnixMilli()))
	st.AddTable("d.a", false, checkpoint.Bound{}, 1)
	st.AddTable("d.forever", false, checkpoint.Bound{}, 1)
	behind := checkpoint.BoundAt(start.Add(-100 * time.Second).UnixMilli())
	st.Tables["d.b"] = &checkpoint.Table{Phase: checkpoint.PhaseCatchUp, Start: behind, CatchUp: &checkpoint.Window{Start: behind}}
	st.Tables["d.done"] = &checkpoint.Table{Phase: checkpoint.PhaseDone}
	m.committed(st)

	check := func(when string, wantA, wantB float64) {
		t.Helper()
		for table, want := range map[string]float64{"d.a": wantA, "d.b": wantB} {
			if got, set := capt.gaugeFloat(metricHeadroom, table); !set || got != want {
				t.Errorf("%s: headroom of %s %v (set %v), want %v", when, table, got, set, want)
			}
		}
		if got, set := capt.gaugeFloat(metricHeadroomMin); !set || got != wantB {
			t.Errorf("%s: least headroom %v (set %v), want %v (d.b's)", when, got, set, wantB)
		}
		for _, table := range []string{"d.forever", "d.done"} {
			if got, set := capt.gaugeFloat(metricHeadroom, table); set {
				t.Errorf("%s: %s has a headroom of %v, want none", when, table, got)
			}
		}
	}
	check("at the commit", 3600-10.5, 600-110.5)
	// A commit within a second of the last walk of the tables is not
	// walked again; the poll tick ages the positions it has.
	moved := st.Clone()
	moved.AdvanceChain(checkpoint.BoundAt(start.Add(5 * time.Second).UnixMilli()))
	at := now.Add(500 * time.Millisecond)
	m.headroom.now = func() time.Time { return at }
	m.committed(moved)
	check("half a second later", 3600-10.5, 600-110.5)
	m.headroom.refresh(now.Add(time.Minute))
	check("a minute later", 3600-70.5, 600-170.5)
	at = now.Add(61 * time.Second)
	m.committed(moved)
	check("at the next commit", 3600-(71.5-5), 600-171.5)
}

// The poll tick's cost with many tables: one gauge set per table.
func BenchmarkHeadroomRefresh10000Tables(b *testing.B) {
	m, _ := capturedMetrics(b)
	st := checkpoint.New()
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	st.StartChain(checkpoint.BoundAt(start.UnixMilli()))
	for i := range 10000 {
		name := "d.t" + strconv.Itoa(i)
		st.AddTable(name, false, checkpoint.Bound{}, 1)
		m.headroom.noteTTL(name, 86400)
	}
	m.committed(st)
	now := start.Add(time.Minute)
	b.ResetTimer()
	for range b.N {
		m.headroom.refresh(now)
	}
}
