package security

import (
	"log/slog"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const (
	rightPassword = "Right-s3cret-pw"
	wrongPassword = "Wr0ng-s3cret-pw"
)

// TestWrongPassword: the FE rejects the credentials. The error names the
// server and the user; neither password appears anywhere.
func TestWrongPassword(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{Password: rightPassword})
	harness.CreateTable(t, srv, db, "auth", harness.TableOpts{})
	in := inputYAML(srv.HTTPAddr(), db+".auth", wrongPassword, "scan_mode: latest")
	f := runFailing(t, in, regexp.QuoteMeta(srv.HTTPAddr()))
	f.assertClean(t, map[string]string{}, wrongPassword, rightPassword)
	if !regexp.MustCompile(`(?i)auth|401|password|denied|credential`).MatchString(errorLines(f)) {
		t.Fatalf("the error does not say the credentials were rejected:\n%s", errorLines(f))
	}
}

// TestWrongPasswordKeepsOffset fails a restart with a wrong password after a
// good run: the stored checkpoint stays byte for byte as it was.
func TestWrongPasswordKeepsOffset(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{Password: rightPassword})
	harness.CreateTable(t, srv, db, "auth_restart", harness.TableOpts{})
	dir := t.TempDir()
	good := inputYAML(srv.HTTPAddr(), db+".auth_restart", rightPassword, "scan_mode: latest")
	col := &harness.Collector{}
	r := harness.RunStream(t, harness.StreamConfig{Input: good, Resources: harness.FileCache(dir)}, col)
	w := harness.NewWorkload(srv, db, "auth_restart", 1)
	deadline := time.Now().Add(30 * time.Second)
	for len(cacheFiles(t, dir)) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := w.Insert(ctxTimeout(t, time.Minute), 5); err != nil {
		t.Fatal(err)
	}
	col.WaitFor(t, 30*time.Second, "the inserts", func(evs []harness.Event) bool { return len(evs) >= 5 })
	if err := r.Stop(15 * time.Second); err != nil {
		t.Fatalf("stopping the good run: %v", err)
	}
	before := cacheFiles(t, dir)
	if err := w.Insert(ctxTimeout(t, time.Minute), 5); err != nil {
		t.Fatal(err)
	}
	bad := inputYAML(srv.HTTPAddr(), db+".auth_restart", wrongPassword, "scan_mode: latest")
	f := &failure{logs: &harness.LogCapture{}, metrics: &harness.MetricsCapture{}, col: &harness.Collector{}, dir: dir}
	f.rerun(t, bad, regexp.QuoteMeta(srv.HTTPAddr()))
	f.assertClean(t, before, wrongPassword, rightPassword)
}

// TestUnreachableFE points fenodes at a port nothing listens on.
func TestUnreachableFE(t *testing.T) {
	addr := testnet.FreeAddr(t)
	f := runFailing(t, inputYAML(addr, db+".t", "pw-unreachable", "scan_mode: latest"), regexp.QuoteMeta(addr))
	f.assertClean(t, map[string]string{}, "pw-unreachable")
}

// TestFENodesSpeaksMySQL points fenodes at the MySQL port: the HTTP client
// meets a MySQL greeting.
func TestFENodesSpeaksMySQL(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "proto", harness.TableOpts{})
	in := inputYAML(srv.MySQLAddr(), db+".proto", "pw-proto", "scan_mode: latest")
	f := runFailing(t, in, regexp.QuoteMeta(srv.MySQLAddr()))
	f.assertClean(t, map[string]string{}, "pw-proto")
}

// TestFlightPortSpeaksHTTP points flight_sql_port at the FE HTTP port: gRPC
// meets an HTTP/1.1 server.
func TestFlightPortSpeaksHTTP(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "proto_flight", harness.TableOpts{})
	_, port, _ := net.SplitHostPort(srv.HTTPAddr())
	in := inputYAML(srv.HTTPAddr(), db+".proto_flight", "", "scan_mode: latest", "flight_sql_port: "+port)
	f := runFailing(t, in, `(?i)flight.*`+regexp.QuoteMeta(srv.HTTPAddr()))
	f.assertClean(t, map[string]string{})
}

func errorLines(f *failure) string {
	var b strings.Builder
	for _, l := range f.logs.Lines(slog.LevelError, "") {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}
