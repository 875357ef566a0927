package checkpoint

import (
	"errors"
	"strings"
	"testing"
)

// A version 2 state written before window_zone existed holds FE-zone wall
// times: it decodes, is flagged, and cannot be saved until converted.
func TestDecodeVersion2WithoutZoneIsInFEZone(t *testing.T) {
	in := `{"version":2,"stream":{"start":"2026-11-01 01:30:00","end":"2026-11-01 01:30:05"},"tables":{"db.t":{"phase":"binlog"}},"seq":1,"saved_at":"2026-11-01T05:30:05Z"}`
	st, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !st.InFEZone() {
		t.Fatal("a version 2 state without window_zone must be taken as FE-zone wall times")
	}
	if _, err := Encode(st); err == nil || !strings.Contains(err.Error(), "window_zone") {
		t.Fatalf("Encode before conversion: %v", err)
	}
	utc, err := Decode([]byte(strings.Replace(in, `"version":2,`, `"version":2,"window_zone":"UTC",`, 1)))
	if err != nil || utc.InFEZone() {
		t.Fatalf("window_zone UTC: %+v, %v", utc, err)
	}
	_, err = Decode([]byte(strings.Replace(in, `"version":2,`, `"version":2,"window_zone":"Europe/Berlin",`, 1)))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "window_zone") {
		t.Fatalf("window_zone Europe/Berlin: %v", err)
	}
}

// ToUTC rewrites every bound, including table starts and catch-up windows,
// and leaves the state untouched when a conversion fails.
func TestToUTCConvertsEveryBound(t *testing.T) {
	st := validState()
	st.WindowZone = ""
	shift := map[string]string{
		"2025-10-09 08:53:20": "2025-10-09 00:53:20",
		"2025-10-09 08:53:30": "2025-10-09 00:53:30",
		"2025-10-09 08:53:25": "2025-10-09 00:53:25",
		"2025-10-09 08:53:00": "2025-10-09 00:53:00",
	}
	conv := func(b Bound) (Bound, error) {
		out, ok := shift[b.String()]
		if !ok {
			return Bound{}, errors.New("unexpected bound " + b.String())
		}
		return mustBound(out), nil
	}
	failing := st.Clone()
	if err := failing.ToUTC(func(b Bound) (Bound, error) {
		if b.String() == "2025-10-09 08:53:25" {
			return Bound{}, errors.New("boom")
		}
		return conv(b)
	}); err == nil || failing.Stream.Start != mustBound("2025-10-09 08:53:20") || !failing.InFEZone() {
		t.Fatalf("a failed conversion changed the state: %v %+v", err, failing.Stream)
	}
	if err := st.ToUTC(conv); err != nil {
		t.Fatal(err)
	}
	items := st.Tables["db.items"]
	if st.InFEZone() || st.Stream.Start != mustBound("2025-10-09 00:53:20") || st.Stream.End != mustBound("2025-10-09 00:53:30") ||
		st.Tables["db.customers"].Start != mustBound("2025-10-09 00:53:25") || items.Start != mustBound("2025-10-09 00:53:00") ||
		items.CatchUp.Start != mustBound("2025-10-09 00:53:00") || items.CatchUp.End != mustBound("2025-10-09 00:53:20") {
		t.Fatalf("not every bound converted: %+v %+v %+v", st.Stream, st.Tables["db.customers"], items.CatchUp)
	}
	if _, err := Encode(st); err != nil {
		t.Fatal(err)
	}
}
