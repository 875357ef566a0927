package checkpoint

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecode checks that Decode never panics, fails only with a corrupt or
// version error, and that whatever it accepts survives a round trip.
func FuzzDecode(f *testing.F) {
	if b, err := Encode(validState()); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"version":1,"table":"db.t","phase":"done","seq":0,"saved_at":"0001-01-01T00:00:00Z"}`))
	f.Add([]byte(``))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := Decode(b)
		if err != nil {
			var ve *UnsupportedVersionError
			if !errors.Is(err, ErrCorrupt) && !errors.As(err, &ve) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if st.InFEZone() {
			if _, err := Encode(st); err == nil {
				t.Fatalf("a state in the FE zone encoded before its conversion: %+v", st)
			}
			if err := st.ToUTC(func(b Bound) (Bound, error) { return b, nil }); err != nil {
				t.Fatalf("identity conversion of an accepted state: %v", err)
			}
		}
		out, err := Encode(st)
		if err != nil {
			t.Fatalf("accepted state does not encode: %v (%+v)", err, st)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		// Compare encodings: time zones and empty slices do not DeepEqual.
		out2, err := Encode(again)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("round trip mismatch:\n%s\n%s (%v)", out, out2, err)
		}
	})
}
