package windowplan

import (
	"fmt"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

func mustBound(t *testing.T, text string) Bound {
	t.Helper()
	return BoundOf(ckb(text))
}

// ckb is a checkpoint bound literal known to be valid.
func ckb(text string) checkpoint.Bound {
	b, err := checkpoint.ParseBound(text)
	if err != nil || b.IsZero() {
		panic(fmt.Sprintf("bad bound literal %q: %v", text, err))
	}
	return b
}

// A bound is the whole second of the Doris clock: /api/tso's physical ms
// floored, and its text is what @incr and the checkpoint hold.
func TestBoundFloorsToTheSecondAndRoundTrips(t *testing.T) {
	base := mustBound(t, "2026-12-01 10:00:00")
	for _, tc := range []struct {
		ms   int64
		want Bound
	}{
		{base.Ms(), base},
		{base.Ms() + 1, base},
		{base.Ms() + 999, base},
		{base.Ms() + 1000, base + 1000},
		{-1, -1000}, // before 1970 floors down, not towards zero
	} {
		if got := BoundAt(tc.ms); got != tc.want {
			t.Errorf("BoundAt(%d) = %d, want %d", tc.ms, got, tc.want)
		}
	}
	if got := BoundAt(base.Ms() + 999).String(); got != "2026-12-01 10:00:00" {
		t.Errorf("text of a floored bound = %q", got)
	}
	// The checkpoint holds the same instant, and writes the same text.
	for _, b := range []Bound{base, base + 1000, -1000} {
		if got := BoundOf(b.Stored()); got != b || b.Stored().String() != b.String() {
			t.Errorf("bound %d (%s) stored as %s and read back as %d", b, b, b.Stored(), got)
		}
	}
}
