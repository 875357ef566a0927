package checkpoint

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Bound is a window bound or table start: a whole second of wall-clock time,
// yyyy-MM-dd HH:mm:ss on the page. In what this version writes it is a UTC
// wall time (window_zone); a state still in the FE's zone holds FE wall
// times until ToUTC. The zero Bound is "not set" (an open window end, a
// table that starts with the chain) and is written as "".
//
// The text is parsed once, where a checkpoint is decoded, and written only
// where it is encoded: saves compare and store the typed value.
type Bound struct {
	sec int64 // the wall time read as UTC, in Unix seconds
	set bool
}

// BoundAt is the bound of the whole second that holds epoch ms (floored).
func BoundAt(ms int64) Bound {
	return Bound{sec: floorDiv(ms, 1000), set: true}
}

// ParseBound reads a strict yyyy-MM-dd HH:mm:ss; "" is the zero Bound.
func ParseBound(text string) (Bound, error) {
	if text == "" {
		return Bound{}, nil
	}
	t, err := doris.ParseTimestamp(text)
	if err != nil {
		return Bound{}, err
	}
	return Bound{sec: t.Unix(), set: true}, nil
}

// IsZero reports whether b is not set (and is omitted where optional).
func (b Bound) IsZero() bool { return !b.set }

// Ms is the bound as epoch ms of its wall time read as UTC, a multiple of 1000.
func (b Bound) Ms() int64 { return b.sec * 1000 }

// Compare orders bounds in time; the zero Bound comes first.
func (b Bound) Compare(o Bound) int {
	switch {
	case b.set != o.set:
		if b.set {
			return 1
		}
		return -1
	case b.sec < o.sec:
		return -1
	case b.sec > o.sec:
		return 1
	}
	return 0
}

// Before reports whether b is earlier than o.
func (b Bound) Before(o Bound) bool { return b.Compare(o) < 0 }

// After reports whether b is later than o.
func (b Bound) After(o Bound) bool { return b.Compare(o) > 0 }

// String is the bound's text, yyyy-MM-dd HH:mm:ss, or "" when not set.
func (b Bound) String() string { return string(b.appendText(nil)) }

// MarshalJSON writes the text as a JSON string, as the string fields of
// earlier releases did, so the stored form is unchanged.
func (b Bound) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, len(doris.TimestampLayout)+2)
	out = append(out, '"')
	out = b.appendText(out)
	return append(out, '"'), nil
}

// UnmarshalJSON reads what MarshalJSON writes. Decode reads bounds as text
// itself, to name the field of a malformed one; this serves other readers.
func (b *Bound) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err != nil {
		return err
	}
	out, err := ParseBound(text)
	if err != nil {
		return fmt.Errorf("window bound: %w", err)
	}
	*b = out
	return nil
}

// appendText formats without time.Format: saves write the stream's bounds
// every time, and this costs no allocation.
func (b Bound) appendText(out []byte) []byte {
	if !b.set {
		return out
	}
	t := time.Unix(b.sec, 0).UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	out = appendDigits(out, y, 4)
	out = append(out, '-')
	out = appendDigits(out, int(mo), 2)
	out = append(out, '-')
	out = appendDigits(out, d, 2)
	out = append(out, ' ')
	out = appendDigits(out, h, 2)
	out = append(out, ':')
	out = appendDigits(out, mi, 2)
	out = append(out, ':')
	return appendDigits(out, s, 2)
}

// appendDigits appends v zero-padded to width digits (v is never negative:
// ParseBound reads years 0000-9999, and bounds come from Doris's clock).
func appendDigits(out []byte, v, width int) []byte {
	var buf [4]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(out, buf[:width]...)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
