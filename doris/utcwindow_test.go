package doris

import (
	"strings"
	"testing"
	"time"
)

func TestUTCWindowBound(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{
		{1793512790000, "2026-11-01 05:59:50"}, // 01:59:50 EDT
		{1793512790999, "2026-11-01 05:59:50"}, // floored, never rounded
		{1793512810123, "2026-11-01 06:00:10"}, // 01:00:10 EST: later, as it should be
		{1774746010500, "2026-03-29 01:00:10"}, // 03:00:10 CEST
		{1000, "1970-01-01 00:00:01"},
	} {
		got := UTCWindowBound(tc.ms)
		if got != tc.want {
			t.Errorf("UTCWindowBound(%d) = %s, want %s", tc.ms, got, tc.want)
		}
		back, err := ParseUTCWindowBound(got)
		if err != nil || back != tc.ms-tc.ms%1000 {
			t.Errorf("ParseUTCWindowBound(%s) = %d, %v; want %d", got, back, err, tc.ms-tc.ms%1000)
		}
	}
}

// TestUTCWindowBoundsAcrossFallBack walks half-second steps over the New
// York fall-back: the FE's wall clock goes back an hour there, the bounds
// (UTC wall times) never go back.
func TestUTCWindowBoundsAcrossFallBack(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 1, 5, 59, 55, 0, time.UTC).UnixMilli()
	prev, prevWall, wallWentBack := "", "", false
	for ms := start; ms < start+10_000; ms += 500 {
		b := UTCWindowBound(ms)
		if want := time.UnixMilli(ms).UTC().Format(time.DateTime); b != want {
			t.Fatalf("UTCWindowBound(%d) = %s, want %s", ms, b, want)
		}
		if b < prev {
			t.Fatalf("bound %s after %s", b, prev)
		}
		wall := time.UnixMilli(ms).In(ny).Format(time.DateTime)
		wallWentBack = wallWentBack || wall < prevWall
		prev, prevWall = b, wall
	}
	if !wallWentBack {
		t.Fatal("the walk did not cross the fall-back: the New York wall clock never went back")
	}
}

func TestParseUTCWindowBoundRejects(t *testing.T) {
	for _, bad := range []string{"", "2026-11-01T05:59:50", "2026-11-01 05:59:50Z", "2026-02-30 00:00:00", "2026-11-01 05:59:50' OR '1'='1"} {
		if _, err := ParseUTCWindowBound(bad); err == nil || !strings.Contains(err.Error(), "UTC window bound") {
			t.Errorf("ParseUTCWindowBound(%q) = %v", bad, err)
		}
	}
}

func FuzzUTCWindowBound(f *testing.F) {
	for _, ms := range []int64{1, 999, 1000, 1793512790999, 253402300799999} {
		f.Add(ms)
	}
	f.Fuzz(func(t *testing.T, ms int64) {
		if ms <= 0 || ms > 253402300799999 { // TSO physical times are positive, Doris dates end in 9999
			return
		}
		b := UTCWindowBound(ms)
		back, err := ParseUTCWindowBound(b)
		if err != nil || back != ms-ms%1000 {
			t.Fatalf("%d -> %q -> %d, %v", ms, b, back, err)
		}
	})
}
