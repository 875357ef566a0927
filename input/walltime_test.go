package input

import (
	"fmt"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

func mustZone(t *testing.T, name string) doris.FEZone {
	t.Helper()
	z, err := doris.LoadFEZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// Logs name a bound in UTC and, where it differs, on the FE's wall clock.
func TestDescribeBoundShowsBothZones(t *testing.T) {
	cases := []struct{ zone, bound, want string }{
		{"America/New_York", "2026-11-01 05:30:00", "2026-11-01 05:30:00 UTC (2026-11-01 01:30:00 America/New_York)"},
		{"America/New_York", "2026-11-01 06:30:00", "2026-11-01 06:30:00 UTC (2026-11-01 01:30:00 America/New_York)"},
		{"Europe/Berlin", "2026-03-29 01:00:00", "2026-03-29 01:00:00 UTC (2026-03-29 03:00:00 Europe/Berlin)"},
		{"+00:00", "2026-03-29 01:00:00", "2026-03-29 01:00:00 UTC"},
	}
	for _, tc := range cases {
		c := &conn{zone: mustZone(t, tc.zone)}
		if got := c.describeBound(mustBound(t, tc.bound)); got != tc.want {
			t.Errorf("%s in %s: got %q, want %q", tc.bound, tc.zone, got, tc.want)
		}
	}
	if got := (&conn{}).describeBound(mustBound(t, "2026-01-01 00:00:00")); got != "2026-01-01 00:00:00 UTC" {
		t.Errorf("without an FE zone: %q", got)
	}
}

// Only the first pass of a repeated hour has a second instant an hour on.
func TestRepeatedHour(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	first, _ := doris.ParseUTCWindowBound("2026-11-01 05:30:00")  // 01:30 EDT
	second, _ := doris.ParseUTCWindowBound("2026-11-01 06:30:00") // 01:30 EST
	noon, _ := doris.ParseUTCWindowBound("2026-11-01 17:00:00")
	if !repeatedHour(ny, "2026-11-01 01:30:00", first) {
		t.Error("01:30 EDT on 2026-11-01 is in New York's repeated hour")
	}
	if repeatedHour(ny, "2026-11-01 01:30:00", second) || repeatedHour(ny, "2026-11-01 12:00:00", noon) {
		t.Error("the second pass and noon have no later twin")
	}
	if repeatedHour(mustZone(t, "Asia/Shanghai"), "2026-11-01 13:30:00", first) {
		t.Error("Shanghai has no daylight saving")
	}
}

func mustBound(t *testing.T, text string) windowplan.Bound {
	t.Helper()
	return windowplan.BoundOf(ckb(text))
}

// ckb is a checkpoint bound literal known to be valid.
func ckb(text string) checkpoint.Bound {
	b, err := checkpoint.ParseBound(text)
	if err != nil || b.IsZero() {
		panic(fmt.Sprintf("bad bound literal %q: %v", text, err))
	}
	return b
}
