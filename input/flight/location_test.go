package flight

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

func TestParseLocation(t *testing.T) {
	cases := []struct {
		uri  string
		want target
		err  bool
	}{
		{"grpc+tcp://10.0.0.5:8050", target{addr: "10.0.0.5:8050"}, false},
		{"grpc://be1:8050", target{addr: "be1:8050"}, false},
		{"grpc+tls://be1.example.com:8050", target{addr: "be1.example.com:8050", tls: true}, false},
		{"GRPC+TCP://[::1]:8050", target{addr: "[::1]:8050"}, false},
		{"", target{useFE: true}, false},
		{flight.LocationReuseConnection, target{useFE: true}, false},
		{"grpc+unix:///tmp/sock", target{}, true},
		{"http://be1:8050", target{}, true},
		{"grpc+tcp://be1", target{}, true},
		{"grpc+tcp://", target{}, true},
		{"::not a uri", target{}, true},
	}
	for _, tc := range cases {
		got, err := parseLocation(tc.uri)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseLocation(%q) = %+v, %v; want %+v, err=%v", tc.uri, got, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), "endpoint location") {
			t.Errorf("error %q does not say which location", err)
		}
	}
}

func TestEndpointTargetPrefersFEForItsOwnAddress(t *testing.T) {
	eps := newEndpoints(Config{Addr: "fe1:9090"})
	for uri, wantFE := range map[string]bool{
		"grpc+tcp://fe1:9090": true,
		"grpc+tcp://FE1:9090": true,
		"grpc+tcp://be1:8050": false,
	} {
		ep := &flight.FlightEndpoint{Location: []*flight.Location{{Uri: uri}}}
		got, err := eps.target(ep)
		if err != nil || got.useFE != wantFE {
			t.Errorf("%s: useFE=%v err=%v, want %v", uri, got.useFE, err, wantFE)
		}
	}
	if got, err := eps.target(&flight.FlightEndpoint{}); err != nil || !got.useFE {
		t.Errorf("no location: %+v %v, want the FE", got, err)
	}
}

func TestAbbreviate(t *testing.T) {
	short := "SELECT 1"
	if abbreviate(short) != short {
		t.Errorf("short SQL changed")
	}
	long := strings.Repeat("é", 150) // 300 bytes, 2-byte runes
	got := abbreviate(long)
	if !strings.HasSuffix(got, "...") || len(got) > maxSQLInErrors+3 || !strings.HasPrefix(long, strings.TrimSuffix(got, "...")) {
		t.Errorf("abbreviate = %q", got)
	}
	if !utf8.ValidString(got) {
		t.Errorf("abbreviate split a rune: %q", got)
	}
}
