package checkpoint

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func validState() *State {
	return &State{
		Version:    Version,
		WindowZone: WindowZoneUTC,
		Stream: &Window{
			Start: mustBound("2025-10-09 08:53:20"),
			End:   mustBound("2025-10-09 08:53:30"),
			Last:  &Pos{TSO: 461373440032243713, Table: "db.orders", LSN: 2, Op: 3},
		},
		Tables: map[string]*Table{
			"db.orders":    {Phase: PhaseBinlog, MaxTablet: 10008},
			"db.customers": {Phase: PhaseSnapshot, Start: mustBound("2025-10-09 08:53:25"), DoneTablets: []int64{10001, 10002}},
			"db.items": {Phase: PhaseCatchUp, Start: mustBound("2025-10-09 08:53:00"),
				CatchUp: &Window{Start: mustBound("2025-10-09 08:53:00"), End: mustBound("2025-10-09 08:53:20"), Last: &Pos{TSO: 5, Table: "db.items", LSN: 0, Op: 0}}},
		},
		Seq:     7,
		SavedAt: time.Date(2025, 10, 9, 8, 53, 31, 0, time.UTC),
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for name, st := range map[string]*State{
		"many tables": validState(),
		"snapshot":    {Version: Version, WindowZone: WindowZoneUTC, Tables: map[string]*Table{"db.t": {Phase: PhaseSnapshot, DoneTablets: []int64{5}}}},
		"done":        {Version: Version, WindowZone: WindowZoneUTC, Tables: map[string]*Table{"db.t": {Phase: PhaseDone}}},
		"no tables":   {Version: Version, WindowZone: WindowZoneUTC, Stream: &Window{Start: mustBound("2025-10-09 08:53:20")}, Tables: map[string]*Table{}},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := Encode(st)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode(%s): %v", b, err)
			}
			if !reflect.DeepEqual(got, st) {
				t.Fatalf("round trip mismatch:\n got %+v\nwant %+v", got, st)
			}
		})
	}
}

func TestEncodeTSOExactInJSON(t *testing.T) {
	b, err := Encode(validState())
	if err != nil {
		t.Fatal(err)
	}
	// A TSO exceeds 2^53; it must be written as an exact integer.
	if !strings.Contains(string(b), `"tso":461373440032243713`) {
		t.Fatalf("TSO not encoded exactly: %s", b)
	}
}

func TestCloneSharesNothingMutable(t *testing.T) {
	st := validState()
	cp := st.Clone()
	cp.Stream.Last.LSN = 99
	cp.Tables["db.orders"].Phase = PhaseDone
	cp.Tables["db.items"].CatchUp.Last.TSO = 1
	delete(cp.Tables, "db.customers")
	if !reflect.DeepEqual(st, validState()) {
		t.Fatalf("changing the clone changed the original: %+v", st)
	}
	if !Equal(validState(), validState().Clone()) || Equal(st, cp) {
		t.Fatal("Equal disagrees with the contents")
	}
	other := validState()
	other.Seq, other.SavedAt = 99, time.Now()
	if !Equal(validState(), other) {
		t.Fatal("Equal must ignore Seq and SavedAt")
	}
}

func TestEncodeFillsVersionAndValidates(t *testing.T) {
	st := &State{WindowZone: WindowZoneUTC, Tables: map[string]*Table{"db.t": {Phase: PhaseDone}}}
	b, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil || got.Version != Version {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := Encode(&State{Tables: map[string]*Table{"db.t": {Phase: "bogus"}}}); err == nil || !strings.Contains(err.Error(), "phase") {
		t.Fatalf("Encode of an invalid phase: %v", err)
	}
	if _, err := Encode(nil); err == nil {
		t.Fatal("Encode(nil) succeeded")
	}
}

const v2Head = `{"version":2,"seq":1,"saved_at":"2025-01-01T00:00:00Z",`

func TestDecodeRejects(t *testing.T) {
	good, err := Encode(validState())
	if err != nil {
		t.Fatal(err)
	}
	win := `"stream":{"start":"2025-10-09 08:53:20","end":"2025-10-09 08:53:30","last":`
	cases := map[string]struct {
		in   string
		want string
	}{
		"empty":            {"", "empty value"},
		"whitespace":       {"  \n", "empty value"},
		"partial":          {string(good[:len(good)/2]), "invalid JSON"},
		"garbage":          {"\x00\x01garbage", "invalid JSON"},
		"array":            {"[1,2]", "invalid JSON"},
		"no version":       {`{"tables":{}}`, "missing version"},
		"trailing":         {string(good) + "{}", "after top-level value"},
		"unknown field":    {v2Head + `"tables":{},"x":1}`, "unknown field"},
		"no tables":        {`{"version":2}`, "tables is missing"},
		"bad phase":        {v2Head + `"tables":{"db.t":{"phase":"streaming"}}}`, "phase must be one of snapshot, catchup, binlog, done"},
		"bad table name":   {v2Head + `"tables":{"dbt":{"phase":"done"}}}`, "invalid entry"},
		"null table":       {v2Head + `"tables":{"db.t":null}}`, "invalid entry"},
		"binlog w/o chain": {v2Head + `"tables":{"db.t":{"phase":"binlog"}}}`, "without a stream"},
		"bad start":        {v2Head + `"tables":{"db.t":{"phase":"snapshot","start":"2025-10-09T08:53:20"}}}`, "start must match yyyy-MM-dd HH:mm:ss"},
		"month 13":         {v2Head + `"stream":{"start":"2025-13-09 08:53:20"},"tables":{}}`, "stream start must match"},
		"one digit hour":   {v2Head + `"stream":{"start":"2025-10-09 8:53:20 "},"tables":{}}`, "stream start must match"},
		"bad end":          {v2Head + `"stream":{"start":"2025-10-09 08:53:20","end":"2025-10-09 08:53"},"tables":{}}`, "stream end must match"},
		"end before start": {v2Head + `"stream":{"start":"2025-10-09 08:53:20","end":"2025-10-09 08:53:10"},"tables":{}}`, "before its start"},
		"last w/o end":     {v2Head + `"stream":{"start":"2025-10-09 08:53:20","last":{"tso":5,"table":"db.t","lsn":0,"op":0}},"tables":{}}`, "last row but no end"},
		"op 4":             {v2Head + win + `{"tso":5,"table":"db.t","lsn":0,"op":4}},"tables":{}}`, "last.op must be 0..3"},
		"op overflow":      {v2Head + win + `{"tso":5,"table":"db.t","lsn":0,"op":300}},"tables":{}}`, "invalid JSON"},
		"tso zero":         {v2Head + win + `{"tso":0,"table":"db.t","lsn":0,"op":0}},"tables":{}}`, "last.tso must be positive"},
		"negative lsn":     {v2Head + win + `{"tso":5,"table":"db.t","lsn":-1,"op":0}},"tables":{}}`, "last.lsn must not be negative"},
		"last w/o table":   {v2Head + win + `{"tso":5,"lsn":0,"op":0}},"tables":{}}`, "last.table must be db.table"},
		"bad tablet":       {v2Head + `"tables":{"db.t":{"phase":"snapshot","snapshot_done_tablets":[0]}}}`, "invalid tablet id 0"},
		"catchup w/o win":  {v2Head + `"stream":{"start":"2025-10-09 08:53:20"},"tables":{"db.t":{"phase":"catchup"}}}`, "catchup is set exactly in phase catchup"},
		"v1 bad phase":     {`{"version":1,"table":"db.t","phase":"streaming"}`, "version 1 phase must be one of"},
		"v1 bad table":     {`{"version":1,"table":"","phase":"done"}`, "not db.table"},
		"v1 month 13":      {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-13-09 08:53:20"}`, "stream start must match"},
		"v1 unknown field": {`{"version":1,"table":"db.t","phase":"done","x":1}`, "unknown field"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st, err := Decode([]byte(tc.in))
			if err == nil {
				t.Fatalf("Decode accepted %q as %+v", tc.in, st)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			if !strings.HasPrefix(err.Error(), "checkpoint is corrupt: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestDecodeUnsupportedVersion(t *testing.T) {
	_, err := Decode([]byte(`{"version":4,"tables":{}}`))
	var ve *UnsupportedVersionError
	if !errors.As(err, &ve) || ve.Version != 4 || !strings.Contains(err.Error(), "version 4") {
		t.Fatalf("got %v", err)
	}
	if errors.Is(err, ErrCorrupt) {
		t.Fatal("a version mismatch is not corruption")
	}
}

// A version 1 state of each phase carries over: same table, same progress,
// the window becoming the shared chain.
func TestDecodeLegacyCarriesOver(t *testing.T) {
	cases := map[string]struct {
		in   string
		want *State
	}{
		"binlog mid-window": {
			`{"version":1,"table":"shop.orders","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53:30","last":{"tso":461373440032243713,"lsn":2,"op":3},"seq":7,"saved_at":"2025-10-09T08:53:31Z"}`,
			&State{Version: Version, Seq: 7, SavedAt: time.Date(2025, 10, 9, 8, 53, 31, 0, time.UTC), FromVersion: 1,
				Stream: &Window{Start: mustBound("2025-10-09 08:53:20"), End: mustBound("2025-10-09 08:53:30"), Last: &Pos{TSO: 461373440032243713, Table: "shop.orders", LSN: 2, Op: 3}},
				Tables: map[string]*Table{"shop.orders": {Phase: PhaseBinlog}}},
		},
		"initial snapshot": {
			`{"version":1,"table":"shop.orders","phase":"snapshot","stream_start":"2025-10-09 08:53:20","snapshot_done_tablets":[3,4],"seq":2,"saved_at":"2025-10-09T08:53:31Z"}`,
			&State{Version: Version, Seq: 2, SavedAt: time.Date(2025, 10, 9, 8, 53, 31, 0, time.UTC), FromVersion: 1,
				Stream: &Window{Start: mustBound("2025-10-09 08:53:20")},
				Tables: map[string]*Table{"shop.orders": {Phase: PhaseSnapshot, DoneTablets: []int64{3, 4}}}},
		},
		"snapshot only": {
			`{"version":1,"table":"shop.orders","phase":"done","seq":3,"saved_at":"2025-10-09T08:53:31Z"}`,
			&State{Version: Version, Seq: 3, SavedAt: time.Date(2025, 10, 9, 8, 53, 31, 0, time.UTC), FromVersion: 1,
				Tables: map[string]*Table{"shop.orders": {Phase: PhaseDone}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Decode([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			if !got.InFEZone() {
				t.Fatal("a version 1 state holds FE-zone wall times")
			}
			if _, err := Encode(got); err == nil {
				t.Fatal("a state in the FE zone must not be saved before its conversion")
			}
			if err := got.ToUTC(func(b Bound) (Bound, error) { return b, nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := Encode(got); err != nil {
				t.Fatalf("a carried-over state must encode as version %d: %v", Version, err)
			}
		})
	}
}

func TestPosOrder(t *testing.T) {
	ordered := []Pos{
		{TSO: 1, Table: "a.t", LSN: 5, Op: 0},
		{TSO: 1, Table: "b.t", LSN: 0, Op: 0},
		{TSO: 1, Table: "b.t", LSN: 0, Op: 2},
		{TSO: 1, Table: "b.t", LSN: 0, Op: 3},
		{TSO: 1, Table: "b.t", LSN: 1, Op: 0},
		{TSO: 2, Table: "a.t", LSN: 0, Op: 0},
	}
	for i := range ordered {
		for j := range ordered {
			if got, want := ordered[i].Less(ordered[j]), i < j; got != want {
				t.Errorf("%+v.Less(%+v) = %v, want %v", ordered[i], ordered[j], got, want)
			}
		}
	}
}
