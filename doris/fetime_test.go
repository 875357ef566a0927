package doris

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// startFE runs the Doris simulator with its global time_zone set to zone
// and returns a client of its statement API.
func startFE(t *testing.T, zone string) (*dorissim.Server, *Client) {
	t.Helper()
	s, err := dorissim.Start(testCtx(t), dorissim.Config{User: testUser, Password: testPassword, TimeZone: zone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, testClient(t, ClientConfig{}, s.HTTPAddr())
}

func TestResolveScanTimestampAtTransitions(t *testing.T) {
	s, c := startFE(t, "Europe/Berlin")
	for _, tc := range []struct {
		zone, ts string
		want     time.Time // zero: the time does not exist
	}{
		{"Europe/Berlin", "2026-03-29 01:59:59", time.Date(2026, 3, 29, 0, 59, 59, 0, time.UTC)},
		{"Europe/Berlin", "2026-03-29 02:30:00", time.Time{}},
		{"Europe/Berlin", "2026-03-29 03:00:00", time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)},
		{"Europe/Berlin", "2026-10-25 02:30:00", time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)},   // first pass, CEST
		{"America/New_York", "2026-11-01 01:30:00", time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)}, // first pass, EDT
		{"America/New_York", "2026-11-01 02:00:00", time.Date(2026, 11, 1, 7, 0, 0, 0, time.UTC)},
		{"America/New_York", "2026-03-08 02:00:00", time.Time{}},
		{"America/New_York", "2026-03-08 02:59:59", time.Time{}},
		{"Asia/Shanghai", "2026-11-01 08:00:00", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"+05:30", "2026-11-01 05:30:00", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if err := s.Exec(testCtx(t), "SET GLOBAL time_zone = '"+tc.zone+"'"); err != nil {
			t.Fatal(err)
		}
		lt, err := ResolveScanTimestamp(testCtx(t), c, tc.ts)
		ms := lt.EpochMs
		if tc.want.IsZero() {
			if err == nil || !strings.HasPrefix(err.Error(), `scan_timestamp "`+tc.ts+`" does not exist in the Doris FE time zone `+tc.zone) {
				t.Errorf("%s in %s: %d, %v; want a gap error naming scan_timestamp", tc.ts, tc.zone, ms, err)
			}
			continue
		}
		if err != nil || ms != tc.want.UnixMilli() {
			t.Errorf("%s in %s: %d, %v; want %d (%s)", tc.ts, tc.zone, ms, err, tc.want.UnixMilli(), tc.want)
		}
	}
}

func TestResolveScanTimestampRejects(t *testing.T) {
	_, c := startFE(t, "UTC")
	for ts, want := range map[string]string{
		"2026-03-29 02:30":               "scan_timestamp: timestamp must match yyyy-MM-dd HH:mm:ss",
		"2026-01-01 00:00:00' OR '1'='1": "scan_timestamp: timestamp must match yyyy-MM-dd HH:mm:ss",
		"2026-02-30 00:00:00":            "scan_timestamp: timestamp is not a valid date and time",
		"1969-12-31 23:59:59":            "scan_timestamp: \"1969-12-31 23:59:59\" in the Doris FE time zone UTC is outside the range",
	} {
		if _, err := ResolveScanTimestamp(testCtx(t), c, ts); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %q", ts, err, want)
		}
	}
}

func TestParseLocalTimeResult(t *testing.T) {
	row := func(cells ...any) *StatementResult { return &StatementResult{Rows: [][]any{cells}} }
	ts := "2026-11-01 01:30:00"
	for _, res := range []*StatementResult{
		row(json.Number("1793511000"), ts, "America/New_York"),
		row("1793511000.000000", ts, "America/New_York"),
		row(json.Number("1793511000.0"), ts, "America/New_York"),
	} {
		lt, err := ParseLocalTimeResult(ts, res)
		if err != nil || lt.EpochMs != 1793511000000 || !lt.Exists || lt.Zone != "America/New_York" {
			t.Errorf("%v: %+v %v", res.Rows, lt, err)
		}
	}
	for _, res := range []*StatementResult{
		{},
		row(json.Number("1793511000"), ts),
		row(json.Number("1793511000.5"), ts, "UTC"),
		row(json.Number("-5"), ts, "UTC"),
		row(json.Number("99999999999999999999"), ts, "UTC"),
		row(json.Number("1793511000"), "01:30", "UTC"),
		row(nil, ts, "UTC"),
	} {
		if lt, err := ParseLocalTimeResult(ts, res); err == nil {
			t.Errorf("%v accepted: %+v", res.Rows, lt)
		}
	}
}

// TestFEZoneFormatsAsTheFE checks the local rendering of offset_timestamp
// against the FE's own FROM_UNIXTIME, every 10 minutes around the 2026
// transitions, for named, aliased and offset zones.
func TestFEZoneFormatsAsTheFE(t *testing.T) {
	s, c := startFE(t, "America/New_York")
	for _, zone := range []string{"America/New_York", "Europe/Berlin", "CST", "+8:00", "UTC"} {
		if err := s.Exec(testCtx(t), "SET GLOBAL time_zone = '"+zone+"'"); err != nil {
			t.Fatal(err)
		}
		z, err := FETimeZone(testCtx(t), c)
		if err != nil {
			t.Fatal(err)
		}
		for _, around := range []time.Time{
			time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC),
		} {
			for d := -70 * time.Minute; d <= 70*time.Minute; d += 10 * time.Minute {
				ms := around.Add(d).UnixMilli() + 999
				res, err := Statement(testCtx(t), c, fmt.Sprintf("SELECT FROM_UNIXTIME(%d / 1000, '%%Y-%%m-%%d %%H:%%i:%%s')", ms))
				if err != nil {
					t.Fatal(err)
				}
				fe, ok := res.CellText(0, 0)
				if !ok {
					t.Fatalf("FROM_UNIXTIME(%d): no cell in %+v", ms, res.Rows)
				}
				if got := z.Format(ms); got != fe {
					t.Errorf("%s (FE says %s): Format(%d) = %s, FE FROM_UNIXTIME = %s", zone, z.Name, ms, got, fe)
				}
			}
		}
	}
}

func TestLoadFEZone(t *testing.T) {
	at := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for name, want := range map[string]string{
		"Asia/Shanghai": "2026-07-01 08:00:00", "CST": "2026-07-01 08:00:00", "prc": "2026-07-01 08:00:00",
		"+8:00": "2026-07-01 08:00:00", "-05:00": "2026-06-30 19:00:00", "EST": "2026-06-30 19:00:00",
		"GMT+8:00": "2026-07-01 08:00:00", "UTC": "2026-07-01 00:00:00", "Europe/London": "2026-07-01 01:00:00",
	} {
		z, err := LoadFEZone(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := z.Format(at); got != want || z.Name != name {
			t.Errorf("%s: %s (%s), want %s", name, got, z.Name, want)
		}
	}
	for _, bad := range []string{"", "Mars/Olympus", "+15:00", "-12:30", "Shanghai", "+8"} {
		if _, err := LoadFEZone(bad); err == nil || !strings.Contains(err.Error(), `Doris FE time zone "`+bad+`"`) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
