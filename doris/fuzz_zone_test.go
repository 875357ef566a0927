package doris

import (
	"encoding/json"
	"testing"
)

// The FE's @@time_zone and its answer to LocalTimeSQL are server responses:
// whatever they hold, the parsers return an error or a usable value.

func FuzzLoadFEZone(f *testing.F) {
	for _, s := range []string{"America/New_York", "+8:00", "CST", "GMT+08:00", "-12:00", "+14:01", "UTC", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		z, err := LoadFEZone(name)
		if err != nil {
			return
		}
		if z.Location == nil || z.Name != name || ValidateTimestamp(z.Format(1793512790123)) != nil {
			t.Fatalf("LoadFEZone(%q) = %+v", name, z)
		}
	})
}

func FuzzParseLocalTimeResult(f *testing.F) {
	f.Add("2026-11-01 01:30:00", "1793511000", "2026-11-01 01:30:00", "America/New_York")
	f.Add("2026-03-29 02:30:00", "1774747800.000000", "2026-03-29 03:30:00", "Europe/Berlin")
	f.Add("1969-12-31 23:59:59", "0", "1970-01-01 00:00:00", "UTC")
	f.Fuzz(func(t *testing.T, ts, epoch, wall, zone string) {
		res := &StatementResult{Rows: [][]any{{json.Number(epoch), wall, zone}}}
		lt, err := ParseLocalTimeResult(ts, res)
		if err != nil {
			return
		}
		if lt.EpochMs <= 0 || lt.EpochMs%1000 != 0 || lt.Exists != (wall == ts) || lt.Zone != zone {
			t.Fatalf("ParseLocalTimeResult(%q, %q %q %q) = %+v", ts, epoch, wall, zone, lt)
		}
	})
}
