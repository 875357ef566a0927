package dorissim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/credentials"
)

// selfSigned returns a server config for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dorissim"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}

func TestTLSOnHTTPAndFlight(t *testing.T) {
	srvTLS, pool := selfSigned(t)
	s := startSim(t, Config{TLS: srvTLS})
	seedAllTypes(t, s)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequestWithContext(testCtx(t), "GET", "https://"+s.HTTPAddr()+"/api/tso", nil)
	req.SetBasicAuth("root", "pw")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("https: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("https status %d", resp.StatusCode)
	}
	creds := credentials.NewTLS(&tls.Config{RootCAs: pool})
	c, ctx := flightLogin(t, s.FlightAddr(), creds)
	info, err := c.Execute(ctx, "SELECT id FROM `db1`.`all_types`")
	if err != nil {
		t.Fatal(err)
	}
	if uri := info.Endpoint[0].Location[0].Uri; !strings.HasPrefix(uri, "grpc+tls://"+s.BEFlightAddr()) {
		t.Fatalf("endpoint %s", uri)
	}
	if _, n, err := flightRead(t, c, ctx, "SELECT id FROM `db1`.`all_types`", creds); err != nil || n != 2 {
		t.Fatalf("TLS read: %d %v", n, err)
	}
}
