package security

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

var cols = []string{"id", "name", "qty", "amount"}

func tlsField(caFile string) string {
	return "tls:\n    enabled: true\n    root_cas_file: " + caFile
}

// TestTLSEndToEnd serves FE HTTP, Flight (FE and BE) and MySQL over TLS with
// a certificate from a test CA, and reads the snapshot, the binlog and
// writes the offset table through them.
func TestTLSEndToEnd(t *testing.T) {
	ca := newCA(t, "doris test CA")
	srv := harness.StartSim(t, dorissim.Config{TLS: ca.serverTLS(t, "127.0.0.1", "localhost")})
	harness.CreateTable(t, srv, db, "tls_src", harness.TableOpts{})
	harness.Exec(t, srv, "CREATE DATABASE ops",
		"CREATE TABLE ops.offsets (\n  consumer_id VARCHAR(256) NOT NULL,\n  offset_timestamp DATETIME NOT NULL,\n  update_time DATETIMEV2(3) NOT NULL)\nUNIQUE KEY(consumer_id) DISTRIBUTED BY HASH(consumer_id) BUCKETS 1\nPROPERTIES (\"replication_num\" = \"1\")")
	w := harness.NewWorkload(srv, db, "tls_src", 4)
	if err := w.Insert(ctxTimeout(t, time.Minute), 50); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	in := inputYAML(srv.HTTPAddr(), db+".tls_src", "", "scan_mode: initial", "batch_size: 20", tlsField(ca.file(t)),
		"jdbc_url: jdbc:mysql://"+srv.MySQLAddr(), "binlog_offset_table: ops.offsets", "binlog_consumer_id: tls-consumer")
	col := &harness.Collector{}
	harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
	col.WaitFor(t, 60*time.Second, "the snapshot over TLS", func(evs []harness.Event) bool { return len(evs) >= 50 })
	ctx := ctxTimeout(t, time.Minute)
	for i := range 30 {
		if err := w.Step(ctx); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := harness.TableState(t, srv, db, "tls_src", "id", cols...)
	evs := col.WaitFor(t, 60*time.Second, "the binlog over TLS", func(evs []harness.Event) bool {
		got, err := harness.Replay(evs, "id")
		return err == nil && harness.Diff(want, got) == ""
	})
	binlog := 0
	for _, ev := range evs {
		if ev.Phase == "binlog" {
			binlog++
		}
	}
	if binlog == 0 {
		t.Fatal("no binlog event arrived over TLS")
	}
	waitOffsetRow(t, srv, "tls-consumer")
}

func waitOffsetRow(t *testing.T, srv *dorissim.Server, consumer string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rows, err := srv.Query(ctx, "SELECT consumer_id FROM ops.offsets")
		cancel()
		if err != nil {
			t.Fatalf("reading the offset table: %v", err)
		}
		if len(rows) == 1 && fmt.Sprint(rows[0][0]) == consumer {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the offset row was not written over MySQL TLS within 30s")
}

// TestTLSWrongCA trusts another CA: the handshake fails with an error that
// names the server and says the certificate is not trusted.
func TestTLSWrongCA(t *testing.T) {
	ca, other := newCA(t, "doris test CA"), newCA(t, "some other CA")
	srv := harness.StartSim(t, dorissim.Config{TLS: ca.serverTLS(t, "127.0.0.1", "localhost")})
	harness.CreateTable(t, srv, db, "tls_ca", harness.TableOpts{})
	in := inputYAML(srv.HTTPAddr(), db+".tls_ca", "pw-tls-ca", "scan_mode: latest", tlsField(other.file(t)))
	f := runFailing(t, in, regexp.QuoteMeta(srv.HTTPAddr())+`.*(unknown authority|not trusted|verify)`)
	f.assertClean(t, map[string]string{}, "pw-tls-ca")
}

// TestTLSWrongHostname presents a certificate from the trusted CA that is
// issued for another host name.
func TestTLSWrongHostname(t *testing.T) {
	ca := newCA(t, "doris test CA")
	srv := harness.StartSim(t, dorissim.Config{TLS: ca.serverTLS(t, "doris.other.example")})
	harness.CreateTable(t, srv, db, "tls_host", harness.TableOpts{})
	in := inputYAML(srv.HTTPAddr(), db+".tls_host", "pw-tls-host", "scan_mode: latest", tlsField(ca.file(t)))
	f := runFailing(t, in, regexp.QuoteMeta(srv.HTTPAddr())+`.*(doris\.other\.example|valid for|hostname|IP SANs)`)
	f.assertClean(t, map[string]string{}, "pw-tls-host")
}

// TestTLSPlaintextClient reads a TLS-only FE without TLS configured.
func TestTLSPlaintextClient(t *testing.T) {
	ca := newCA(t, "doris test CA")
	srv := harness.StartSim(t, dorissim.Config{TLS: ca.serverTLS(t, "127.0.0.1")})
	harness.CreateTable(t, srv, db, "tls_plain", harness.TableOpts{})
	in := inputYAML(srv.HTTPAddr(), db+".tls_plain", "pw-tls-plain", "scan_mode: latest")
	f := runFailing(t, in, regexp.QuoteMeta(srv.HTTPAddr()))
	f.assertClean(t, map[string]string{}, "pw-tls-plain")
}
