package security

import (
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestTLSGRPCTCPEndpointDialledWithTLS: Doris (behind a proxy, or with
// public_host) advertises the result BE as grpc+tcp:// although it serves
// TLS. With tls enabled the input dials it with TLS and reads the rows.
func TestTLSGRPCTCPEndpointDialledWithTLS(t *testing.T) {
	ca := newCA(t, "doris test CA")
	srv := harness.StartSim(t, dorissim.Config{TLS: ca.serverTLS(t, "127.0.0.1"), AdvertiseBEFlightTCP: true, Password: "pw-tcp-loc"})
	harness.CreateTable(t, srv, db, "tls_tcp_loc", harness.TableOpts{})
	if err := harness.NewWorkload(srv, db, "tls_tcp_loc", 4).Insert(ctxTimeout(t, time.Minute), 30); err != nil {
		t.Fatal(err)
	}
	in := inputYAML(srv.HTTPAddr(), db+".tls_tcp_loc", "pw-tcp-loc", "scan_mode: snapshot", tlsField(ca.file(t)))
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot from a grpc+tcp BE dialled with TLS", func(evs []harness.Event) bool { return len(evs) >= 30 })
	if n := srv.Stats().BEFlight["DoGet"]; n == 0 {
		t.Fatalf("no DoGet reached the BE (stats %v): the rows did not come from the grpc+tcp endpoint", srv.Stats().BEFlight)
	}
}

// TestTLSPlaintextEndpointRefused: the result BE really serves plaintext
// while the FE uses TLS. The input does not send the bearer token there in
// the clear: it fails naming the endpoint and allow_plaintext_endpoints,
// delivers nothing and leaks no password.
func TestTLSPlaintextEndpointRefused(t *testing.T) {
	ca := newCA(t, "doris test CA")
	srv := harness.StartSim(t, dorissim.Config{TLS: ca.serverTLS(t, "127.0.0.1"), PlaintextBEFlight: true, Password: "pw-plain-be"})
	harness.CreateTable(t, srv, db, "tls_plain_be", harness.TableOpts{})
	if err := harness.NewWorkload(srv, db, "tls_plain_be", 4).Insert(ctxTimeout(t, time.Minute), 5); err != nil {
		t.Fatal(err)
	}
	in := inputYAML(srv.HTTPAddr(), db+".tls_plain_be", "pw-plain-be", "scan_mode: snapshot", tlsField(ca.file(t)))
	f := runFailing(t, in, regexp.QuoteMeta(srv.BEFlightAddr())+`.*allow_plaintext_endpoints`)
	f.assertClean(t, map[string]string{}, "pw-plain-be")
	if n := srv.Stats().BEFlight["DoGet"]; n != 0 {
		t.Fatalf("%d DoGet calls reached the plaintext BE", n)
	}
}

// TestTLSPlaintextEndpointAllowed: allow_plaintext_endpoints reads the
// plaintext BE, and says so at start with a warning.
func TestTLSPlaintextEndpointAllowed(t *testing.T) {
	ca := newCA(t, "doris test CA")
	srv := harness.StartSim(t, dorissim.Config{TLS: ca.serverTLS(t, "127.0.0.1"), PlaintextBEFlight: true, Password: "pw-plain-ok"})
	harness.CreateTable(t, srv, db, "tls_plain_ok", harness.TableOpts{})
	if err := harness.NewWorkload(srv, db, "tls_plain_ok", 4).Insert(ctxTimeout(t, time.Minute), 20); err != nil {
		t.Fatal(err)
	}
	in := inputYAML(srv.HTTPAddr(), db+".tls_plain_ok", "pw-plain-ok", "scan_mode: snapshot", tlsField(ca.file(t)),
		"allow_plaintext_endpoints: true")
	logs, col := &harness.LogCapture{}, &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot from the plaintext BE", func(evs []harness.Event) bool { return len(evs) >= 20 })
	if len(logs.Lines(slog.LevelWarn, "allow_plaintext_endpoints is true")) == 0 {
		t.Fatalf("no start warning about allow_plaintext_endpoints; log:\n%s", logs.All())
	}
}
