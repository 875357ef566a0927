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
		Version:     Version,
		Table:       "db.orders",
		Phase:       PhaseBinlog,
		StreamStart: "2025-10-09 08:53:20",
		DoneTablets: []int64{10001, 10002},
		WindowStart: "2025-10-09 08:53:20",
		WindowEnd:   "2025-10-09 08:53:30",
		Last:        &RowPos{TSO: 461373440032243713, LSN: 2, Op: 3},
		Seq:         7,
		SavedAt:     time.Date(2025, 10, 9, 8, 53, 31, 0, time.UTC),
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for name, st := range map[string]*State{
		"binlog with last": validState(),
		"snapshot":         {Version: 1, Table: "db.t", Phase: PhaseSnapshot, DoneTablets: []int64{5}},
		"done":             {Version: 1, Table: "db.t", Phase: PhaseDone},
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

func TestEncodeFillsVersionAndValidates(t *testing.T) {
	st := &State{Table: "db.t", Phase: PhaseDone}
	b, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil || got.Version != Version {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := Encode(&State{Table: "db.t", Phase: "bogus"}); err == nil || !strings.Contains(err.Error(), "phase") {
		t.Fatalf("Encode of an invalid phase: %v", err)
	}
	if _, err := Encode(nil); err == nil {
		t.Fatal("Encode(nil) succeeded")
	}
}

func TestDecodeRejects(t *testing.T) {
	good, err := Encode(validState())
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		in   string
		want string
	}{
		"empty":            {"", "empty value"},
		"whitespace":       {"  \n", "empty value"},
		"partial":          {string(good[:len(good)/2]), "invalid JSON"},
		"garbage":          {"\x00\x01garbage", "invalid JSON"},
		"array":            {"[1,2]", "invalid JSON"},
		"no version":       {`{"table":"db.t","phase":"done"}`, "missing version"},
		"trailing":         {string(good) + "{}", "after top-level value"},
		"unknown field":    {`{"version":1,"table":"db.t","phase":"done","seq":1,"saved_at":"2025-01-01T00:00:00Z","x":1}`, "unknown field"},
		"bad phase":        {`{"version":1,"table":"db.t","phase":"streaming"}`, "phase must be one of snapshot, binlog, done"},
		"empty table":      {`{"version":1,"table":"","phase":"done"}`, "table is empty"},
		"bad stream_start": {`{"version":1,"table":"db.t","phase":"binlog","stream_start":"2025-10-09T08:53:20"}`, "stream_start must match yyyy-MM-dd HH:mm:ss"},
		"month 13":         {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-13-09 08:53:20"}`, "window_start must match"},
		"one digit hour":   {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 8:53:20 "}`, "window_start must match"},
		"bad window_end":   {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53"}`, "window_end must match"},
		"end before start": {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53:10"}`, "before window_start"},
		"end w/o start":    {`{"version":1,"table":"db.t","phase":"binlog","window_end":"2025-10-09 08:53:20"}`, "window_end is set without window_start"},
		"last w/o window":  {`{"version":1,"table":"db.t","phase":"binlog","last":{"tso":5,"lsn":0,"op":0}}`, "last is set without window_start and window_end"},
		"op 4":             {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53:30","last":{"tso":5,"lsn":0,"op":4}}`, "last.op must be 0..3"},
		"op -1":            {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53:30","last":{"tso":5,"lsn":0,"op":-1}}`, "last.op must be 0..3"},
		"op overflow":      {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53:30","last":{"tso":5,"lsn":0,"op":300}}`, "invalid JSON"},
		"tso zero":         {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53:30","last":{"tso":0,"lsn":0,"op":0}}`, "last.tso must be positive"},
		"negative lsn":     {`{"version":1,"table":"db.t","phase":"binlog","window_start":"2025-10-09 08:53:20","window_end":"2025-10-09 08:53:30","last":{"tso":5,"lsn":-1,"op":0}}`, "last.lsn must not be negative"},
		"bad tablet":       {`{"version":1,"table":"db.t","phase":"snapshot","snapshot_done_tablets":[0]}`, "invalid tablet id 0"},
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
	_, err := Decode([]byte(`{"version":2,"table":"db.t","phase":"done"}`))
	var ve *UnsupportedVersionError
	if !errors.As(err, &ve) || ve.Version != 2 || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("got %v", err)
	}
	if errors.Is(err, ErrCorrupt) {
		t.Fatal("a version mismatch is not corruption")
	}
}

func TestRowPosLess(t *testing.T) {
	ordered := []RowPos{
		{TSO: 1, LSN: 0, Op: 0},
		{TSO: 1, LSN: 0, Op: 2},
		{TSO: 1, LSN: 0, Op: 3},
		{TSO: 1, LSN: 1, Op: 0},
		{TSO: 2, LSN: 0, Op: 0},
	}
	for i := range ordered {
		for j := range ordered {
			if got, want := ordered[i].Less(ordered[j]), i < j; got != want {
				t.Errorf("%+v.Less(%+v) = %v, want %v", ordered[i], ordered[j], got, want)
			}
		}
	}
}
