package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// jsonEqual is what Equal must agree with: the encodings of the two
// positions, Seq and SavedAt aside.
func jsonEqual(t *testing.T, a, b *State) bool {
	t.Helper()
	if a == nil || b == nil {
		return a == b
	}
	enc := func(s *State) []byte {
		cp := *s
		cp.Seq, cp.SavedAt, cp.FromVersion = 0, time.Time{}, 0
		out, err := json.Marshal(&cp)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return bytes.Equal(enc(a), enc(b))
}

// Every change a field can take, one at a time, and the changes that do
// not show in the JSON (order of tablets, empty against nil).
func TestEqualAgreesWithTheEncoding(t *testing.T) {
	variants := map[string]func(s *State){
		"same":                  func(*State) {},
		"seq and saved_at":      func(s *State) { s.Seq++; s.SavedAt = s.SavedAt.Add(time.Hour); s.FromVersion = 2 },
		"version":               func(s *State) { s.Version = 2 },
		"window zone":           func(s *State) { s.WindowZone = "" },
		"no stream":             func(s *State) { s.Stream = nil },
		"stream start":          func(s *State) { s.Stream.Start = mustBound("2025-10-09 08:53:21") },
		"stream end":            func(s *State) { s.Stream.End = Bound{} },
		"stream last nil":       func(s *State) { s.Stream.Last = nil },
		"stream last tso":       func(s *State) { s.Stream.Last.TSO++ },
		"stream last table":     func(s *State) { s.Stream.Last.Table = "db.items" },
		"stream last lsn":       func(s *State) { s.Stream.Last.LSN++ },
		"stream last op":        func(s *State) { s.Stream.Last.Op = 2 },
		"planned empty vs nil":  func(s *State) { s.Stream.Planned = []Bound{} },
		"planned":               func(s *State) { s.Stream.Planned = []Bound{mustBound("2025-10-09 08:53:40")} },
		"tables nil":            func(s *State) { s.Tables = nil },
		"tables empty":          func(s *State) { s.Tables = map[string]*Table{} },
		"table added":           func(s *State) { s.Tables["db.new"] = &Table{Phase: PhaseSnapshot} },
		"table nil":             func(s *State) { s.Tables["db.orders"] = nil },
		"table renamed":         func(s *State) { s.Tables["db.other"] = s.Tables["db.orders"]; delete(s.Tables, "db.orders") },
		"phase":                 func(s *State) { s.Tables["db.orders"].Phase = PhaseDone },
		"start":                 func(s *State) { s.Tables["db.orders"].Start = mustBound("2025-10-09 08:53:25") },
		"max tablet":            func(s *State) { s.Tables["db.orders"].MaxTablet++ },
		"tablets order":         func(s *State) { s.Tables["db.customers"].DoneTablets = Tablets{10002, 10001, 10002} },
		"tablets more":          func(s *State) { s.Tables["db.customers"].DoneTablets = Tablets{10001, 10002, 10003} },
		"tablets other":         func(s *State) { s.Tables["db.customers"].DoneTablets = Tablets{10001, 10003} },
		"tablets none":          func(s *State) { s.Tables["db.customers"].DoneTablets = nil },
		"tablets empty vs none": func(s *State) { s.Tables["db.orders"].DoneTablets = Tablets{} },
		"catchup nil":           func(s *State) { s.Tables["db.items"].CatchUp = nil },
		"catchup end":           func(s *State) { s.Tables["db.items"].CatchUp.End = mustBound("2025-10-09 08:53:21") },
		"catchup last":          func(s *State) { s.Tables["db.items"].CatchUp.Last.LSN = 9 },
		"signal":                func(s *State) { s.Tables["db.customers"].Signal = "s1" },
		"signal filter":         func(s *State) { s.Tables["db.customers"].SignalFilter = "id = 1" },
		"pending signal":        func(s *State) { s.Tables["db.orders"].Pending = &PendingSignal{ID: "s1", Kind: "stop-snapshot"} },
		"snapshot tso":          func(s *State) { s.Tables["db.orders"].SnapshotTSO = 7 },
	}
	for name, change := range variants {
		a, b := validState(), validState()
		change(b)
		want := jsonEqual(t, a, b)
		if got := Equal(a, b); got != want {
			t.Errorf("%s: Equal = %v, the encodings say %v", name, got, want)
		}
		if got := Equal(b, a); got != want {
			t.Errorf("%s, swapped: Equal = %v, the encodings say %v", name, got, want)
		}
	}
	if !Equal(nil, nil) || Equal(validState(), nil) || Equal(nil, validState()) {
		t.Error("Equal with nil states")
	}
}

// Equal lists the fields it compares; a field added to a position struct
// must be added there too, which this count is a reminder of.
func TestEqualKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int
	}{{State{}, 8}, {Window{}, 4}, {Table{}, 9}, {Pos{}, 4}} {
		if got := reflect.TypeOf(c.v).NumField(); got != c.want {
			t.Errorf("%T has %d fields, Equal was written for %d: compare the new one in equal.go and update this count", c.v, got, c.want)
		}
	}
}

func BenchmarkEqual100Tables(b *testing.B) {
	mk := func() *State {
		st := New()
		st.StartChain(mustBound("2026-12-01 10:00:00"))
		for i := range 100 {
			k := fmt.Sprintf("bench.many_%03d", i)
			st.AddTable(k, true, Bound{}, int64(10000+i*8+7))
			st.SnapshotTabletsDone(k, []int64{int64(10000 + i*8), int64(10000 + i*8 + 1)})
		}
		return st
	}
	x, y := mk(), mk()
	for b.Loop() {
		Equal(x, y)
	}
}
