package kafkae2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// selfSigned is a server TLS config for 127.0.0.1 and its CA as PEM.
func selfSigned(t *testing.T) (*tls.Config, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kfake"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	srv := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}, MinVersion: tls.VersionTLS12}
	return srv, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestBinlogIntoKafkaOverTLSAndSCRAM streams into a broker that requires
// TLS and SASL SCRAM-SHA-512, exactly once.
func TestBinlogIntoKafkaOverTLSAndSCRAM(t *testing.T) {
	srv, start := shopSim(t)
	serverTLS, caPEM := selfSigned(t)
	kc := startKafka(t, kfake.TLS(serverTLS), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "doris", "s3cret-pw"))
	brokers := kc.ListenAddrs()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(caPEM))
	c := consume(t, brokers, kgo.DialTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}),
		kgo.SASL(scram.Auth{User: "doris", Pass: "s3cret-pw"}.AsSha512Mechanism()))

	in := harness.SelectYAML(srv, `include: ['shop\..*']`, "scan_mode: from-timestamp", `scan_timestamp: "`+start+`"`)
	caYAML := "  root_cas: |\n"
	for _, l := range splitLines(caPEM) {
		caYAML += "    " + l + "\n"
	}
	out := cdcOutput(brokers, "exactly_once: true", "transactional_id: tls-e2e",
		"tls:\n  enabled: true\n"+caYAML,
		"sasl:\n  - mechanism: SCRAM-SHA-512\n    username: doris\n    password: s3cret-pw")
	startStream(t, in, harness.FileCache(t.TempDir()), out)
	w := harness.NewWorkload(srv, "shop", "orders", 11)
	runWorkload(t, w, 20)
	harness.Exec(t, srv, "INSERT INTO shop.events VALUES (5, 'e', 5, 5.00)")
	recs := waitTables(t, srv, c, 1, "the changes over TLS and SASL")
	if _, dups := tableEvents(t, recs, "doris.shop.orders"); dups != 0 {
		t.Errorf("%d duplicates", dups)
	}
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// TestBrokerRestartMidStream stops the broker while changes flow and starts
// it again on the same port and data: the output reconnects, and the topics
// end up with every change exactly once.
func TestBrokerRestartMidStream(t *testing.T) {
	srv, start := shopSim(t)
	dir := t.TempDir()
	kc := startKafka(t, kfake.DataDir(dir))
	addr := kc.ListenAddrs()[0]
	_, portS, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portS)

	in := harness.SelectYAML(srv, `include: ['shop\..*']`, "scan_mode: from-timestamp", `scan_timestamp: "`+start+`"`)
	out := cdcOutput([]string{addr}, "exactly_once: true", "transactional_id: restart-e2e", "timeout: 2s")
	startStream(t, in, harness.FileCache(t.TempDir()), out)
	w := harness.NewWorkload(srv, "shop", "orders", 13)
	runWorkload(t, w, 20)
	time.Sleep(1500 * time.Millisecond) // let some of it be written

	kc.Close()
	runWorkload(t, w, 20) // while the broker is down
	time.Sleep(3 * time.Second)
	kc2 := startKafka(t, kfake.DataDir(dir), kfake.Ports(port))
	runWorkload(t, w, 10)
	harness.Exec(t, srv, "INSERT INTO shop.events VALUES (6, 'f', 6, 6.00)")

	c := consume(t, kc2.ListenAddrs())
	recs := waitTables(t, srv, c, 1, "every change after the broker restart")
	time.Sleep(2 * time.Second)
	recs = c.records()
	if _, dups := tableEvents(t, recs, "doris.shop.orders"); dups != 0 {
		t.Errorf("%d changes written twice across the broker restart", dups)
	}
	checkKeyOrder(t, recs)
}
