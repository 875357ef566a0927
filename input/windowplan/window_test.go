package windowplan

import (
	"testing"
	"time"
)

func TestSplitWindowKeepsOrderAndCoverage(t *testing.T) {
	for _, tc := range []struct {
		start, end string
		ok         bool
	}{
		{"2026-01-01 00:00:00", "2026-01-01 00:00:10", true},
		{"2026-01-01 00:00:00", "2026-01-01 00:00:03", true},
		{"2026-01-01 00:00:00", "2026-01-01 00:00:02", true},
		{"2026-01-01 00:00:00", "2026-01-01 00:00:01", false},
		{"2026-01-01 23:59:59", "2026-01-02 06:00:00", true},
	} {
		halves, ok := Split(Window{Start: mustBound(t, tc.start), End: mustBound(t, tc.end)})
		if ok != tc.ok {
			t.Fatalf("Split(%s, %s) ok = %v, want %v", tc.start, tc.end, ok, tc.ok)
		}
		if !ok {
			continue
		}
		a, b := halves[0], halves[1]
		if a.Start.String() != tc.start || b.End.String() != tc.end || a.End != b.Start {
			t.Fatalf("halves %v of [%s, %s) do not chain", halves, tc.start, tc.end)
		}
		if mustMs(t, a.End) <= mustMs(t, a.Start) || mustMs(t, b.End) <= mustMs(t, b.Start) || mustMs(t, a.End)%1000 != 0 {
			t.Fatalf("halves %v are not whole non-empty seconds", halves)
		}
	}
}

func mustMs(t *testing.T, b Bound) int64 {
	t.Helper()
	return b.Ms()
}

// secWindow is [from, to) in seconds after 2026-01-01 00:00:00 UTC.
func secWindow(from, to int64) Window {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	return Window{Start: BoundAt(base + from*1000), End: BoundAt(base + to*1000)}
}

// TestSplitWindowDownToSeconds splits windows until no piece can be split:
// every piece ends at one second, and the pieces chain from start to end.
func TestSplitWindowDownToSeconds(t *testing.T) {
	for _, n := range []int64{2, 3, 5, 7, 10, 61, 3601, 3 * 86400} {
		w := secWindow(0, n)
		pieces := []Window{w}
		var leaves []Window
		for len(pieces) > 0 {
			p := pieces[0]
			pieces = pieces[1:]
			halves, ok := Split(p)
			if !ok {
				leaves = append(leaves, p)
				continue
			}
			if d0, d1 := mustMs(t, halves[0].End)-mustMs(t, halves[0].Start), mustMs(t, halves[1].End)-mustMs(t, halves[1].Start); d0 > d1 || d1-d0 > 1000 {
				t.Fatalf("%v split into %d ms and %d ms, want halves at a whole second", p, d0, d1)
			}
			pieces = append([]Window{halves[0], halves[1]}, pieces...)
		}
		if int64(len(leaves)) != n {
			t.Fatalf("%d s window ended in %d pieces, want %d one-second pieces", n, len(leaves), n)
		}
		at := w.Start
		for _, l := range leaves {
			if l.Start != at || mustMs(t, l.End)-mustMs(t, l.Start) != 1000 {
				t.Fatalf("piece %v after %s: not the next second", l, at)
			}
			at = l.End
		}
		if at != w.End {
			t.Fatalf("pieces end at %s, want %s", at, w.End)
		}
	}
}
