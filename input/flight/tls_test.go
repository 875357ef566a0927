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
