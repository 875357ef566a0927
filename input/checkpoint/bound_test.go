package checkpoint

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mustBound is ParseBound for literals known to be valid.
func mustBound(text string) Bound {
	b, err := ParseBound(text)
	if err != nil || b.IsZero() {
		panic("bad bound literal " + text)
	}
	return b
}

// A state decoded and encoded again is byte for byte what was stored: the
// typed bounds write exactly the text they were read from, in every place
// a bound can sit, through Encode and through the Store's encoder.
func TestDecodeEncodeIdentical(t *testing.T) {
	stored := []string{
		`{"version":3,"window_zone":"UTC","stream":{"start":"2025-10-09 08:53:20","end":"2025-10-09 08:53:30","last":{"tso":461373440032243713,"table":"db.orders","lsn":2,"op":3},"planned_ends":["2025-10-09 08:53:31","2026-01-01 00:00:00"]},` +
			`"tables":{"db.customers":{"phase":"snapshot","start":"2025-10-09 08:53:25","snapshot_done_tablets":"10001+1","max_tablet":10009},` +
			`"db.items":{"phase":"catchup","start":"2024-02-29 23:59:59","catchup":{"start":"2024-02-29 23:59:59","end":"2025-10-09 08:53:20","last":{"tso":5,"table":"db.items","lsn":0,"op":0}}},` +
			`"db.orders":{"phase":"binlog"}},"seq":7,"saved_at":"2025-10-09T08:53:31Z"}`,
		`{"version":3,"window_zone":"UTC","stream":{"start":"1970-01-01 00:00:00"},"tables":{"db.t":{"phase":"catchup","start":"0000-01-01 00:00:00","catchup":{"start":"0000-01-01 00:00:00","end":"1969-12-31 23:59:59"}}},"seq":1,"saved_at":"2025-10-09T08:53:31Z"}`,
		`{"version":3,"window_zone":"UTC","stream":{"start":"9999-12-31 23:59:58","end":"9999-12-31 23:59:59"},"tables":{},"seq":2,"saved_at":"2025-10-09T08:53:31Z"}`,
	}
	for i, in := range stored {
		st, err := Decode([]byte(in))
		if err != nil {
			t.Fatalf("state %d: %v", i, err)
		}
		out, err := Encode(st)
		if err != nil || string(out) != in {
			t.Fatalf("state %d: Encode changed the stored bytes (%v):\n got %s\nwant %s", i, err, out, in)
		}
		var enc encoder
		for range 2 { // the second encode comes from the encoder's cache
			out, err = enc.encode(st)
			if err != nil || string(out) != in {
				t.Fatalf("state %d: the Store's encoder changed the stored bytes (%v):\n got %s\nwant %s", i, err, out, in)
			}
		}
	}
}

// The golden checkpoint of an earlier release still decodes, and its
// bounds are written back as they were.
func TestGoldenBoundsUnchanged(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "v2_snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	const want = `"stream":{"start":"2026-11-01 10:00:00"}`
	if !bytes.Contains(b, []byte(want)) || !bytes.Contains(out, []byte(want)) {
		t.Fatalf("stream bound changed:\n in %s\nout %s", b, out)
	}
}

// A malformed bound fails where the state is decoded, naming its field and
// value; a save then only compares.
func TestMalformedBoundFailsAtDecode(t *testing.T) {
	head := `{"version":3,"window_zone":"UTC","seq":1,"saved_at":"2025-01-01T00:00:00Z",`
	for in, want := range map[string]string{
		head + `"stream":{"start":"2025-10-09 08:53:20","planned_ends":["2025-10-09 8:53:21"]},"tables":{}}`:                                                             `stream planned_ends must be ascending timestamps after the window; got "2025-10-09 8:53:21" after "2025-10-09 08:53:20"`,
		head + `"stream":{"start":"2025-10-09 08:53:20","planned_ends":["2025-10-09 08:53:20"]},"tables":{}}`:                                                            `stream planned_ends must be ascending timestamps after the window; got "2025-10-09 08:53:20" after "2025-10-09 08:53:20"`,
		head + `"stream":{"start":"2025-10-09 08:53:20"},"tables":{"db.t":{"phase":"catchup","start":"2025-10-09 08:53:00","catchup":{"start":"2025-02-30 08:53:00"}}}}`: `table db.t catchup start must match yyyy-MM-dd HH:mm:ss; got "2025-02-30 08:53:00"`,
		head + `"stream":{"start":"2025-10-09 08:53:20","end":"2025-10-09 08:53:19"},"tables":{}}`:                                                                       `stream end "2025-10-09 08:53:19" is before its start "2025-10-09 08:53:20"`,
		head + `"stream":{"start":""},"tables":{}}`:                                 `stream start must match yyyy-MM-dd HH:mm:ss; got ""`,
		head + `"tables":{"db.t":{"phase":"snapshot","start":"2025-10-09 08:53"}}}`: `table db.t: start must match yyyy-MM-dd HH:mm:ss; got "2025-10-09 08:53"`,
	} {
		_, err := Decode([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want an error containing %q", in, err, want)
		}
	}
}

// Bound's own JSON methods read and write the same text, for readers
// other than Decode.
func TestBoundJSON(t *testing.T) {
	for _, text := range []string{"2026-12-03 10:00:00", "0000-01-01 00:00:00", "9999-12-31 23:59:59", "2024-02-29 12:34:56"} {
		var b Bound
		if err := json.Unmarshal([]byte(`"`+text+`"`), &b); err != nil || b.String() != text {
			t.Fatalf("Unmarshal %q = %v, %v", text, b, err)
		}
		out, err := json.Marshal(b)
		if err != nil || string(out) != `"`+text+`"` {
			t.Fatalf("Marshal %q = %s, %v", text, out, err)
		}
	}
	var b Bound
	if err := json.Unmarshal([]byte(`"2026-12-03T10:00:00"`), &b); err == nil {
		t.Fatal("Unmarshal accepted a bound that is not yyyy-MM-dd HH:mm:ss")
	}
	if BoundAt(-1).String() != "1969-12-31 23:59:59" || BoundAt(1999) != BoundAt(1000) {
		t.Fatalf("BoundAt does not floor to the second: %s %s", BoundAt(-1), BoundAt(1999))
	}
}

// boundsState is a streaming position with every kind of bound: the
// stream's window and planned ends, and one table catching up on its own.
func boundsState(n int) (*State, *Table) {
	st := benchState(n)
	st.Stream.Planned = []Bound{mustBound("2026-12-03 10:00:02"), mustBound("2026-12-03 10:00:03")}
	start := mustBound("2026-12-03 09:00:00")
	t := &Table{Phase: PhaseCatchUp, Start: start, CatchUp: &Window{Start: start, End: mustBound("2026-12-03 09:30:00"), Last: &Pos{TSO: 1, Table: "shop.table_0001", LSN: 1}}}
	return st, t
}

// BenchmarkSaveValidation is the validation of one save by the Store's
// encoder: the head (the stream's window and planned ends) and the one
// table that changed, a catching-up table. Before bounds were typed it
// parsed each bound's text again (6 parses here); now it compares.
func BenchmarkSaveValidation(b *testing.B) {
	st, t := boundsState(1)
	for b.Loop() {
		if err := validateHead(st); err != nil {
			b.Fatal(err)
		}
		if err := validateTable("shop.table_0001", t, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaveWithBounds is a whole save by the Store's encoder of 100
// tables where the catching-up table's progress changed.
func BenchmarkSaveWithBounds(b *testing.B) {
	st, t := boundsState(100)
	var enc encoder
	for i := 0; b.Loop(); i++ {
		ct := *t
		ct.CatchUp = t.CatchUp.Clone()
		ct.CatchUp.Last.TSO = int64(i + 1)
		st.Tables["shop.table_0001"] = &ct
		if _, err := enc.encode(st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaveChainProgress is a save in the binlog phase: the stream's
// last row moved, so its window is written again (the tables are not).
func BenchmarkSaveChainProgress(b *testing.B) {
	st, _ := boundsState(100)
	w := *st.Stream
	var enc encoder
	for i := 0; b.Loop(); i++ {
		nw := w
		nw.Last = &Pos{TSO: int64(i + 1), Table: "shop.table_0002", LSN: 1}
		st.Stream = &nw
		if _, err := enc.encode(st); err != nil {
			b.Fatal(err)
		}
	}
}
