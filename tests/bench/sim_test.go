package bench

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/rpconnect-doris/rpconnect-doris/internal/testnet"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// sim is a dorissim process: its CPU and memory stay out of the numbers of
// the process under test.
type sim struct {
	cmd                           *exec.Cmd
	http, mysql, flight, beFlight string
	pprof                         string // the simulator's /debug/pprof address
	db                            *sql.DB
	client                        *http.Client
}

// readyAddrs parses `dorissim ready http=... mysql=... flight=... be_flight=...`.
func readyAddrs(line string) (map[string]string, bool) {
	if !strings.HasPrefix(line, "dorissim ready ") {
		return nil, false
	}
	out := map[string]string{}
	for _, f := range strings.Fields(strings.TrimPrefix(line, "dorissim ready ")) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || v == "" {
			return nil, false
		}
		out[k] = v
	}
	for _, k := range []string{"http", "mysql", "flight", "be_flight"} {
		if out[k] == "" {
			return nil, false
		}
	}
	return out, true
}

// scaledSim starts a test that measures rows on a simulator of its own:
// BENCH_SCALE applied, a context that ends after timeout or with the test,
// and the simulator.
func scaledSim(t *testing.T, timeout time.Duration) (context.Context, *sim) {
	t.Helper()
	applyScale(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx, startSim(t)
}

// benchSim is scaledSim for a test that runs only with BENCH=1: without it
// the test is skipped, saying that it runs what.
func benchSim(t *testing.T, what string, timeout time.Duration) (context.Context, *sim) {
	t.Helper()
	if os.Getenv("BENCH") != "1" {
		t.Skip("set BENCH=1 to run " + what)
	}
	return scaledSim(t, timeout)
}

func startSim(t *testing.T) *sim {
	t.Helper()
	bin := harness.Binary(t, "dorissim", "DORISSIM_BIN")
	args := []string{"-http-port", "0", "-mysql-port", "0", "-flight-port", "0", "-be-flight-port", "0", "-visible-wait-timeout", "30s"}
	// Doris's default connection limits (max_user_connections 100,
	// qe_max_connection 1024): each rpconnect-doris process keeps within
	// max_flight_sessions however many tables a row follows, and closes
	// its sessions (CloseSession) when it stops.
	// The simulator's own profile (curl http://$addr/debug/pprof/profile)
	// at BENCH_SIM_PPROF; the endpoint is always on, for collect.
	pprofAddr := os.Getenv("BENCH_SIM_PPROF")
	if pprofAddr == "" {
		pprofAddr = testnet.FreeAddr(t)
	}
	args = append(args, "-pprof", pprofAddr)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting dorissim: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	ready := make(chan map[string]string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addrs, ok := readyAddrs(sc.Text()); ok {
				ready <- addrs
			}
		}
	}()
	var addrs map[string]string
	select {
	case addrs = <-ready:
	case <-time.After(time.Minute):
		t.Fatal("dorissim did not print its ready line within a minute")
	}
	s := &sim{cmd: cmd, pprof: pprofAddr, http: addrs["http"], mysql: addrs["mysql"], flight: addrs["flight"], beFlight: addrs["be_flight"],
		client: &http.Client{Timeout: 10 * time.Minute}}
	s.db, err = sql.Open("mysql", "root:@tcp("+s.mysql+")/?interpolateParams=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.db.Close() })
	return s
}

// collect runs a full garbage collection in the simulator and waits for
// it. dorissim keeps every seeded table in its Go heap (1.5 GB after the
// snapshot ratio rows' seeding), and a collection of that heap costs it
// 1.5 s of CPU, which a Doris BE never spends; left to chance, it lands in
// whichever row comes next, takes a core from the client there, and moved
// one row's rate by 2× between rounds. Collecting before each measured row
// starts every row with the live heap, leaving more allocation than a row
// makes before the next collection is due.
func (s *sim) collect(t *testing.T) {
	t.Helper()
	c := &http.Client{Timeout: 2 * time.Minute}
	resp, err := c.Get("http://" + s.pprof + "/debug/pprof/heap?gc=1")
	if err != nil {
		t.Fatalf("dorissim garbage collection before a row: %v", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("dorissim garbage collection before a row: status %d, %v", resp.StatusCode, err)
	}
}

// row measures one bench row, after collect.
func (s *sim) row(t *testing.T, name string, fn func() error) {
	t.Helper()
	s.collect(t)
	measure(t, name, fn)
}

func (s *sim) exec(ctx context.Context, stmt string) error {
	if _, err := s.db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("dorissim %s: %q: %w", s.mysql, stmt, err)
	}
	return nil
}

// now is the simulator's NOW() as a scan_timestamp.
func (s *sim) now(ctx context.Context) (string, error) {
	var v string
	if err := s.db.QueryRowContext(ctx, "SELECT CAST(NOW() AS CHAR)").Scan(&v); err != nil {
		return "", fmt.Errorf("SELECT NOW() on %s: %w", s.mysql, err)
	}
	if len(v) < 19 {
		return "", fmt.Errorf("SELECT NOW() on %s returned %q", s.mysql, v)
	}
	return v[:19], nil
}

// streamLoad sends one CSV (tab-separated, `\N` = NULL) stream load, as
// Doris wants it: Expect: 100-continue, then the 307 to the BE followed with
// the credentials again.
func (s *sim) streamLoad(ctx context.Context, db, table, label string, body []byte, headers map[string]string) error {
	url := fmt.Sprintf("http://%s/api/%s/%s/_stream_load", s.http, db, table)
	for hop := 0; hop < 3; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.SetBasicAuth("root", "")
		req.Header.Set("Expect", "100-continue")
		req.Header.Set("label", label)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := s.noRedirect().Do(req)
		if err != nil {
			return fmt.Errorf("stream load %s into %s.%s: %w", label, db, table, err)
		}
		data, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusTemporaryRedirect {
			url = resp.Header.Get("Location")
			continue
		}
		var res struct{ Status, Message string }
		if err := json.Unmarshal(data, &res); err != nil || res.Status != "Success" {
			return fmt.Errorf("stream load %s into %s.%s: HTTP %d: %s", label, db, table, resp.StatusCode, data)
		}
		return nil
	}
	return fmt.Errorf("stream load %s into %s.%s: too many redirects", label, db, table)
}

func (s *sim) noRedirect() *http.Client {
	c := *s.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// cpu is the simulator's user+sys CPU so far.
func (s *sim) cpu(t *testing.T) time.Duration {
	t.Helper()
	d, err := procCPU(s.cmd.Process.Pid)
	if err != nil {
		t.Fatalf("CPU of dorissim: %v", err)
	}
	return d
}
