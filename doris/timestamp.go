package doris

import (
	"fmt"
	"time"
)

// TimestampLayout is Doris's `yyyy-MM-dd HH:mm:ss` in Go notation.
const TimestampLayout = "2006-01-02 15:04:05"

// Timestamp is a Doris wall-clock second and the TSO physical time it was
// derived from, floored to the second.
type Timestamp struct {
	Text       string // yyyy-MM-dd HH:mm:ss: UTC for window bounds
	PhysicalMs int64  // epoch ms, a multiple of 1000
}

// ParseTimestamp parses a strict `yyyy-MM-dd HH:mm:ss` (exactly 19 bytes,
// digits in place, a real calendar date and time) as a zone-less wall clock
// in UTC. Every timestamp put into SQL goes through it.
func ParseTimestamp(s string) (time.Time, error) {
	if !timestampShape(s) {
		return time.Time{}, fmt.Errorf("timestamp must match yyyy-MM-dd HH:mm:ss: %q", s)
	}
	t, err := time.Parse(TimestampLayout, s)
	if err != nil || t.Format(TimestampLayout) != s {
		return time.Time{}, fmt.Errorf("timestamp is not a valid date and time: %q", s)
	}
	return t, nil
}

// ValidateTimestamp reports whether s is a strict `yyyy-MM-dd HH:mm:ss`.
func ValidateTimestamp(s string) error {
	_, err := ParseTimestamp(s)
	return err
}

func timestampShape(s string) bool {
	if len(s) != len(TimestampLayout) {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 4, 7:
			if s[i] != '-' {
				return false
			}
		case 10:
			if s[i] != ' ' {
				return false
			}
		case 13, 16:
			if s[i] != ':' {
				return false
			}
		default:
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
	}
	return true
}
