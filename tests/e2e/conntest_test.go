package e2e

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// connectionTest builds the input as a resource, as `rpk connect` and the
// Redpanda Connect API do for a connection test, and runs the test through
// Benthos's wrappers (auto_replay_nacks is on by default).
func connectionTest(t *testing.T, input string) service.ConnectionTestResults {
	t.Helper()
	b := service.NewResourceBuilder()
	b.SetLogger(slog.New(slog.DiscardHandler))
	if err := b.AddCacheYAML("label: cp\nmemory:\n  compaction_interval: \"\"\n"); err != nil {
		t.Fatal(err)
	}
	if err := b.AddInputYAML("label: under_test\n" + input); err != nil {
		t.Fatal(err)
	}
	res, closeFn, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Bounded: a test that failed inside the input must not hang here.
		cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer ccancel()
		_ = closeFn(cctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out service.ConnectionTestResults
	if err := res.AccessInput(ctx, "under_test", func(i *service.ResourceInput) { out = i.ConnectionTest(ctx) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func failures(results service.ConnectionTestResults) []string {
	var out []string
	for _, r := range results {
		if r.Err != nil {
			out = append(out, r.Err.Error())
		}
	}
	return out
}

func TestConnectionTestHealthy(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE e2e")
	harness.CreateTable(t, srv, "e2e", "t", harness.TableOpts{})
	got := connectionTest(t, harness.InputYAML(srv, "e2e.t", "scan_mode: initial"))
	if len(got) != 1 || got[0].Err != nil {
		t.Fatalf("results %v, want one success", failures(got))
	}
}

func TestConnectionTestBroken(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE e2e")
	harness.CreateTable(t, srv, "e2e", "t", harness.TableOpts{})
	harness.CreateTable(t, srv, "e2e", "nolog", harness.TableOpts{NoBinlog: true})

	// A second FE that refuses connections, a missing table and a table
	// without row binlog: one result each, naming what failed.
	deadFE := testnet.FreeAddr(t)
	input := harness.SelectYAML(srv, "tables: [e2e.t, e2e.missing, e2e.nolog]", "scan_mode: initial")
	input = strings.Replace(input, "fenodes: "+srv.HTTPAddr(), "fenodes: \""+srv.HTTPAddr()+","+deadFE+"\"", 1)
	got := failures(connectionTest(t, input))
	want := []string{"FE " + deadFE, "table e2e.missing does not exist", "table e2e.nolog has no row binlog"}
	if len(got) != len(want) {
		t.Fatalf("failures %q, want %d naming %q", got, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("failure %d %q, want it to name %q", i, got[i], w)
		}
	}

	// A wrong password fails every FE; a wrong Flight SQL port fails the
	// Flight check alone.
	bad := strings.Replace(harness.InputYAML(srv, "e2e.t", "scan_mode: initial"), "password: \"\"", "password: wrong", 1)
	if got := failures(connectionTest(t, bad)); len(got) != 1 || !strings.Contains(got[0], "FE "+srv.HTTPAddr()) {
		t.Errorf("wrong password: failures %q, want one naming the FE", got)
	}
	_, port, _ := net.SplitHostPort(deadFE)
	noFlight := harness.InputYAML(srv, "e2e.t", "scan_mode: initial", "flight_sql_port: "+port, "request_connect_timeout: 2s")
	if got := failures(connectionTest(t, noFlight)); len(got) != 1 || !strings.Contains(got[0], "Flight SQL on 127.0.0.1") {
		t.Errorf("closed Flight port: failures %q, want one naming the Flight SQL server", got)
	}
}
