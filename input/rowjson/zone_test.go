package rowjson

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A DATETIME reads the same under every session zone, in both Arrow forms:
// the newest BE sends the wall clock without a zone; older ones convert it
// from the session time_zone to an instant and attach that zone. The input
// runs its sessions in +00:00, but an FE zone attached instead must not
// shift the value either, including inside a repeated hour. (A wall clock
// inside a skipped hour has no instant in that zone, which is one more
// reason for +00:00 sessions.)
func TestDatetimeSameUnderEverySessionZone(t *testing.T) {
	walls := []time.Time{
		time.Date(2026, 11, 1, 1, 30, 0, 250_000_000, time.UTC), // New York repeats this hour
		time.Date(2026, 3, 29, 3, 0, 0, 0, time.UTC),            // Berlin's first second after its gap
		time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
	}
	want := []string{`{"dt":"2026-11-01 01:30:00.250"}`, `{"dt":"2026-03-29 03:00:00.000"}`,
		`{"dt":"2026-07-01 12:00:00.000"}`, `{"dt":"1969-12-31 23:59:59.000"}`}
	for _, zone := range []string{"", "+00:00", "UTC", "America/New_York", "Europe/Berlin", "Asia/Shanghai", "-05:00", "+05:45"} {
		loc := time.UTC
		if zone != "" {
			var err error
			if loc, err = arrowZone(zone); err != nil {
				t.Fatal(err)
			}
		}
		fields := []arrow.Field{{Name: "dt", Type: tsType(arrow.Millisecond, zone)}}
		rec := buildRecord(t, fields, func(b *array.RecordBuilder) {
			for _, w := range walls {
				// What the BE sends: the wall clock read in the session zone.
				inst := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
				b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(inst.UnixMilli()))
			}
		})
		got := convertAll(t, rec, Options{})
		t.Run("zone="+zone, func(t *testing.T) { expectRows(t, got, want...) })
	}
}

func TestUnknownTimestampZoneIsAnError(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "dt", Type: tsType(arrow.Second, "Mars/Olympus")}}, nil)
	if _, err := NewConverter(schema, Options{}); err == nil || !strings.Contains(err.Error(), `"dt"`) {
		t.Fatalf("NewConverter: %v", err)
	}
}

// FuzzArrowZone: any zone text either loads or is an error; a loaded zone
// renders an instant without panicking.
func FuzzArrowZone(f *testing.F) {
	for _, s := range []string{"UTC", "+00:00", "-05:00", "+14:00", "+15:00", "America/New_York", "Z", "", "../etc", "+1:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		loc, err := arrowZone(name)
		if err != nil {
			return
		}
		_ = time.Unix(1793512800, 0).In(loc).Format(time.RFC3339)
	})
}
