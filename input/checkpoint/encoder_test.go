package checkpoint

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestEncoderMatchesEncode drives one encoder through a long random walk of
// the changes a run makes (tables added and removed, phases moving, tablets
// done, windows advancing, invalid states in between) and checks that every
// save writes exactly Encode's bytes and fails exactly when Encode does.
func TestEncoderMatchesEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 3))
	st := New()
	st.Stream = &Window{Start: mustBound("2026-12-03 10:00:00")}
	var enc encoder
	for step := range 3000 {
		mutate(rng, st)
		st.Seq = uint64(step)
		st.SavedAt = time.Date(2026, 12, 3, 10, 0, 0, step, time.UTC)
		want, wantErr := Encode(st)
		got, gotErr := enc.encode(st)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("step %d: Encode error %v, encoder error %v", step, wantErr, gotErr)
		}
		if wantErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("step %d: encoder wrote\n%s\nEncode wrote\n%s", step, got, want)
		}
		if wantErr != nil {
			repair(st)
		}
	}
}

// mutate applies one random change to st, as the coordinator would, and
// sometimes one that makes it invalid.
func mutate(rng *rand.Rand, st *State) {
	name := fmt.Sprintf("db.t%02d", rng.IntN(40))
	t := st.Tables[name]
	switch rng.IntN(10) {
	case 0, 1:
		if t == nil {
			st.Tables[name] = &Table{Phase: PhaseSnapshot, MaxTablet: int64(1000 + rng.IntN(9))}
		} else {
			delete(st.Tables, name)
		}
	case 2, 3, 4:
		if t != nil && t.Phase == PhaseSnapshot {
			nt := *t
			nt.DoneTablets = append(Tablets(nil), t.DoneTablets...)
			nt.DoneTablets = append(nt.DoneTablets, int64(1000+rng.IntN(9)))
			st.Tables[name] = &nt
		}
	case 5:
		if t != nil {
			nt := *t
			nt.Phase, nt.DoneTablets = PhaseBinlog, nil
			st.Tables[name] = &nt
		}
	case 6:
		if t != nil {
			nt := *t
			nt.Phase = PhaseCatchUp
			nt.Start = mustBound("2026-12-03 09:59:00")
			nt.CatchUp = &Window{Start: nt.Start, End: mustBound("2026-12-03 09:59:30"), Last: &Pos{TSO: rng.Int64N(1 << 40), Table: name}}
			st.Tables[name] = &nt
		}
	case 7:
		// In place, as the emitter's progress state is moved.
		if t != nil && t.CatchUp != nil {
			t.CatchUp.Last = &Pos{TSO: rng.Int64N(1 << 40), Table: name, LSN: rng.Int64N(5)}
		}
		// The stream too, which the encoder's cached head must notice.
		if st.Stream != nil && !st.Stream.End.IsZero() {
			if rng.IntN(2) == 0 {
				st.Stream.Last = &Pos{TSO: 1 + rng.Int64N(1<<40), Table: name, LSN: rng.Int64N(5)}
			} else {
				st.Stream.Planned = []Bound{BoundAt(st.Stream.End.Ms() + 1000*(1+rng.Int64N(3)))}
			}
		}
	case 8:
		end := BoundAt(time.Date(2026, 12, 3, 10, 0, rng.IntN(60), 0, time.UTC).UnixMilli())
		if !end.Before(st.Stream.Start) {
			st.Stream = &Window{Start: st.Stream.Start, End: end, Planned: nil}
		}
	case 9:
		if t != nil && rng.IntN(4) == 0 {
			nt := *t
			nt.Phase = "bogus"
			st.Tables[name] = &nt
		} else if rng.IntN(20) == 0 {
			st.Stream = nil // invalid while a table streams
		}
	}
}

// repair undoes what made st invalid.
func repair(st *State) {
	if st.Stream == nil {
		st.Stream = &Window{Start: mustBound("2026-12-03 10:00:00")}
	}
	for name, t := range st.Tables {
		if t.Phase == "bogus" {
			nt := *t
			nt.Phase = PhaseSnapshot
			st.Tables[name] = &nt
		}
	}
}

// TestEncoderForgetsRemovedTables checks that a table gone from the state
// is gone from the bytes, also after a failed save.
func TestEncoderForgetsRemovedTables(t *testing.T) {
	st := validState()
	var enc encoder
	if _, err := enc.encode(st); err != nil {
		t.Fatal(err)
	}
	st.Tables["db.orders"] = &Table{Phase: "bogus"}
	if _, err := enc.encode(st); err == nil {
		t.Fatal("a table with phase bogus was encoded")
	}
	delete(st.Tables, "db.orders")
	got, err := enc.encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte(`"db.orders":{`)) {
		t.Fatalf("removed table still written: %s", got)
	}
	want, _ := Encode(st)
	if !bytes.Equal(got, want) {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestEncoderAfterFailedSaveWithNewTable: a save that adds a table and
// fails on another must not leave the new table out of the next save.
// Map order decides which of the two the encoder meets first, so the case
// runs until both orders have been seen.
func TestEncoderAfterFailedSaveWithNewTable(t *testing.T) {
	for range 50 {
		st := validState()
		var enc encoder
		if _, err := enc.encode(st); err != nil {
			t.Fatal(err)
		}
		st.Tables["db.added"] = &Table{Phase: PhaseSnapshot}
		st.Tables["db.orders"] = &Table{Phase: "bogus"}
		if _, err := enc.encode(st); err == nil {
			t.Fatal("a table with phase bogus was encoded")
		}
		st.Tables["db.orders"] = &Table{Phase: PhaseBinlog}
		got, err := enc.encode(st)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := Encode(st); !bytes.Equal(got, want) {
			t.Fatalf("after a failed save, got\n%s\nwant\n%s", got, want)
		}
	}
}

// TestEncoderHeadErrorsAreEncodes: a state without tables, with a broken
// stream window, or both, fails in the encoder with Encode's very error, as
// both check the state's head with validateHead.
func TestEncoderHeadErrorsAreEncodes(t *testing.T) {
	bad := &Window{Start: mustBound("2026-12-03 10:00:00"), End: mustBound("2026-12-03 09:00:00")}
	for _, tc := range []struct {
		name   string
		tables map[string]*Table
		stream *Window
	}{
		{"no tables", nil, &Window{Start: mustBound("2026-12-03 10:00:00")}},
		{"bad window", map[string]*Table{}, bad},
		{"both", nil, bad},
	} {
		st := New()
		st.Tables, st.Stream = tc.tables, tc.stream
		_, wantErr := Encode(st)
		var enc encoder
		_, gotErr := enc.encode(st)
		if wantErr == nil || gotErr == nil || gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: encoder error %v, Encode error %v", tc.name, gotErr, wantErr)
		}
	}
}

// benchState is a database position: n tables streaming, one in its
// snapshot with some tablets done.
func benchState(n int) *State {
	st := New()
	st.Stream = &Window{Start: mustBound("2026-12-03 10:00:00"), End: mustBound("2026-12-03 10:00:01")}
	for i := range n {
		st.Tables[fmt.Sprintf("shop.table_%04d", i)] = &Table{Phase: PhaseBinlog, MaxTablet: int64(100000 + 8*i)}
	}
	st.Tables["shop.table_0000"] = &Table{Phase: PhaseSnapshot, DoneTablets: Tablets{100001, 100002, 100005}, MaxTablet: 100008}
	return st
}

// BenchmarkCheckpointSave is a save after an acknowledged snapshot batch:
// one table's done tablets changed. Encode encodes every table each time;
// the Store's encoder only the changed one.
func BenchmarkCheckpointSave(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("Encode/tables=%d", n), func(b *testing.B) {
			st := benchState(n)
			for i := 0; b.Loop(); i++ {
				st.Tables["shop.table_0000"] = &Table{Phase: PhaseSnapshot, DoneTablets: Tablets{100001, int64(100002 + i%6)}, MaxTablet: 100008}
				if _, err := Encode(st); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("encoder/tables=%d", n), func(b *testing.B) {
			st := benchState(n)
			var enc encoder
			for i := 0; b.Loop(); i++ {
				st.Tables["shop.table_0000"] = &Table{Phase: PhaseSnapshot, DoneTablets: Tablets{100001, int64(100002 + i%6)}, MaxTablet: 100008}
				if _, err := enc.encode(st); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
