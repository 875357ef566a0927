package input

import (
	"strings"
	"testing"
)

// TestWarnPlaintextEndpoints: allow_plaintext_endpoints is called out at
// start, saying what travels unencrypted; without it nothing is said.
func TestWarnPlaintextEndpoints(t *testing.T) {
	for _, tc := range []struct {
		allow, tls bool
		want       string // "" : no warning
	}{
		{false, false, ""},
		{false, true, ""},
		{true, false, "tls is not enabled"},
		{true, true, "bearer token and the rows fetched from them travel unencrypted"},
	} {
		log, sink := captureLogger(t)
		warnPlaintextEndpoints(&Config{AllowPlaintextEndpoints: tc.allow, TLSEnabled: tc.tls}, log)
		warns := sink.Lines("WARN", "")
		if tc.want == "" {
			if len(warns) != 0 {
				t.Errorf("allow %v tls %v: warned %q", tc.allow, tc.tls, warns)
			}
			continue
		}
		if len(warns) != 1 || !strings.Contains(warns[0], tc.want) || !strings.Contains(warns[0], fieldAllowPlaintextEndpoints) {
			t.Errorf("allow %v tls %v: warnings %q, want one naming %s and saying %q", tc.allow, tc.tls, warns, fieldAllowPlaintextEndpoints, tc.want)
		}
	}
}
