package flight

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// selfSigned returns a server certificate for 127.0.0.1 and a pool that
// trusts it.
func selfSigned(t *testing.T, cn string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

func startTLSCluster(t *testing.T) (*cluster, *x509.CertPool) {
	t.Helper()
	cert, pool := selfSigned(t, "doris-test")
	c := newCluster(testUser, testPass)
	c.start(t, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	return c, pool
}

func TestTLSQueryThroughBE(t *testing.T) {
	c, pool := startTLSCluster(t)
	c.script("SELECT tls", scenario{Endpoints: []endpointSpec{{Where: "be", Batches: [][]int64{{1, 2}}}}})
	cl, err := Dial(testCtx(t), Config{Addr: c.feAddr, Username: testUser, Password: testPass, TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatalf("Dial over TLS: %v", err)
	}
	defer cl.Close()
	ids, _, _, err := collect(t, cl, "SELECT tls")
	if err != nil || !reflect.DeepEqual(ids, []int64{1, 2}) {
		t.Fatalf("ids=%v err=%v", ids, err)
	}
	if got := c.servedBy("SELECT tls#1#0"); !reflect.DeepEqual(got, []string{"be"}) {
		t.Errorf("served by %v, want the BE over grpc+tls", got)
	}
}

func TestTLSWrongCAFails(t *testing.T) {
	c, _ := startTLSCluster(t)
	_, otherPool := selfSigned(t, "someone-else")
	_, err := Dial(testCtx(t), Config{Addr: c.feAddr, Username: testUser, Password: testPass,
		TLS: &tls.Config{RootCAs: otherPool, MinVersion: tls.VersionTLS12}, ConnectTimeout: 5 * time.Second})
	if err == nil {
		t.Fatal("Dial trusting the wrong CA succeeded")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{c.feAddr, "TLS handshake failed", "certificate"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, testPass) {
		t.Errorf("error %q leaks the password", msg)
	}
}

func TestPlaintextClientAgainstTLSServerFails(t *testing.T) {
	c, _ := startTLSCluster(t)
	_, err := Dial(testCtx(t), Config{Addr: c.feAddr, Username: testUser, Password: testPass, ConnectTimeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), c.feAddr) {
		t.Fatalf("err = %v, want a failure naming the FE", err)
	}
}

func TestGRPCTLSLocationWithoutTLSConfig(t *testing.T) {
	c := startCluster(t)
	c.script("tls loc", scenario{Endpoints: []endpointSpec{{Where: "grpc+tls://" + "127.0.0.1:1", Batches: [][]int64{{1}}}}})
	cl := dialCluster(t, c)
	err := cl.Exec(testCtx(t), "tls loc")
	if err == nil || !strings.Contains(err.Error(), "no TLS is configured") {
		t.Fatalf("err = %v, want a clear TLS configuration error", err)
	}
}

// With TLS configured, an endpoint advertised as grpc+tcp (a proxy or
// public_host setup advertising the wrong scheme) is dialled with TLS, so
// the bearer token and the rows never travel in the clear.
func TestTLSDialsGRPCTCPLocationWithTLS(t *testing.T) {
	c, pool := startTLSCluster(t)
	c.script("SELECT tcp", scenario{Endpoints: []endpointSpec{{Where: "grpc+tcp://" + c.beAddr, Batches: [][]int64{{7, 8}}}}})
	cl, err := Dial(testCtx(t), Config{Addr: c.feAddr, Username: testUser, Password: testPass,
		TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("Dial over TLS: %v", err)
	}
	defer cl.Close()
	ids, _, _, err := collect(t, cl, "SELECT tcp")
	if err != nil || !reflect.DeepEqual(ids, []int64{7, 8}) {
		t.Fatalf("ids=%v err=%v, want the grpc+tcp endpoint read over TLS", ids, err)
	}
	if got := c.servedBy("SELECT tcp#1#0"); !reflect.DeepEqual(got, []string{"be"}) {
		t.Errorf("served by %v, want the BE", got)
	}
}

// A BE that really serves plaintext behind a grpc+tcp location is not
// dialled in the clear: the fetch fails naming the endpoint and the option,
// and succeeds only once allow_plaintext_endpoints is set.
func TestTLSPlaintextEndpointNeedsOption(t *testing.T) {
	c, pool := startTLSCluster(t)
	plainBE := serveFlight(t, &beServer{c: c}, nil)
	c.script("SELECT plain", scenario{Endpoints: []endpointSpec{{Where: "grpc+tcp://" + plainBE, Batches: [][]int64{{1}}}}})
	conf := Config{Addr: c.feAddr, Username: testUser, Password: testPass,
		TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ConnectTimeout: 2 * time.Second}

	cl, err := Dial(testCtx(t), conf)
	if err != nil {
		t.Fatalf("Dial over TLS: %v", err)
	}
	defer cl.Close()
	_, _, _, err = collect(t, cl, "SELECT plain")
	if err == nil {
		t.Fatal("a plaintext endpoint was read although TLS is configured")
	}
	for _, want := range []string{plainBE, "allow_plaintext_endpoints"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if got := c.servedBy("SELECT plain#1#0"); len(got) != 0 {
		t.Errorf("the plaintext BE served the ticket: %v", got)
	}

	conf.AllowPlaintextEndpoints = true
	cl2, err := Dial(testCtx(t), conf)
	if err != nil {
		t.Fatalf("Dial over TLS: %v", err)
	}
	defer cl2.Close()
	ids, _, _, err := collect(t, cl2, "SELECT plain")
	if err != nil || !reflect.DeepEqual(ids, []int64{1}) {
		t.Fatalf("with allow_plaintext_endpoints: ids=%v err=%v", ids, err)
	}
}

func TestEndpointTransportPolicy(t *testing.T) {
	someTLS := &tls.Config{MinVersion: tls.VersionTLS12}
	cases := []struct {
		name          string
		conf          Config
		uri           string
		tls, upgraded bool
		err           string
	}{
		{"plain config, grpc+tcp", Config{}, "grpc+tcp://be:1", false, false, ""},
		{"plain config, grpc+tls", Config{}, "grpc+tls://be:1", false, false, "no TLS is configured"},
		{"tls config, grpc+tls", Config{TLS: someTLS}, "grpc+tls://be:1", true, false, ""},
		{"tls config, grpc+tcp", Config{TLS: someTLS}, "grpc+tcp://be:1", true, true, ""},
		{"tls config, grpc", Config{TLS: someTLS}, "grpc://be:1", true, true, ""},
		{"tls config allowing plaintext, grpc+tcp", Config{TLS: someTLS, AllowPlaintextEndpoints: true}, "grpc+tcp://be:1", false, false, ""},
		{"tls config allowing plaintext, grpc+tls", Config{TLS: someTLS, AllowPlaintextEndpoints: true}, "grpc+tls://be:1", true, false, ""},
	}
	for _, tc := range cases {
		tc.conf.Addr = "fe:9090"
		eps := newEndpoints(tc.conf)
		got, err := eps.target(&flight.FlightEndpoint{Location: []*flight.Location{{Uri: tc.uri}}})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "be:1") {
				t.Errorf("%s: err = %v, want one naming be:1 and %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got.tls != tc.tls || got.upgraded != tc.upgraded || got.useFE {
			t.Errorf("%s: %+v %v, want tls=%v upgraded=%v", tc.name, got, err, tc.tls, tc.upgraded)
		}
	}
}
