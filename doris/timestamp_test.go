package doris

import (
	"testing"
	"time"
)

func TestParseTimestamp(t *testing.T) {
	got, err := ParseTimestamp("2024-02-29 23:59:59")
	if err != nil || !got.Equal(time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC)) {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := ParseTimestamp("0000-01-01 00:00:00"); err != nil {
		t.Fatalf("year 0: %v", err)
	}
	for _, bad := range []string{
		"", "2024-02-30 00:00:00", "2023-02-29 00:00:00", "2024-13-01 00:00:00", "2024-01-01 24:00:00",
		"2024-01-01 00:60:00", "2024-01-01 00:00:60", "2024-01-01T00:00:00", "2024-01-01 00:00:00.1",
		"2024-1-01 00:00:00", " 2024-01-01 00:00:00", "2024-01-01 00:00:0a", "2024-01-01 00:00:00Z",
		"2024-01-01", "+024-01-01 00:00:00", "２０２４-01-01 00:00", "2024-01-01 00:00:00'",
	} {
		if _, err := ParseTimestamp(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
		if ValidateTimestamp(bad) == nil {
			t.Errorf("ValidateTimestamp accepted %q", bad)
		}
	}
}
