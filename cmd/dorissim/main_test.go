package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

var readyLine = regexp.MustCompile(`^dorissim ready http=127\.0\.0\.1:\d+ mysql=127\.0\.0\.1:\d+ flight=127\.0\.0\.1:\d+ be_flight=127\.0\.0\.1:\d+$`)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds the command once for all tests of the package.
func binary(t *testing.T, ctx context.Context) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dorissim-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "dorissim")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func TestReadyLineAndSIGTERM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := binary(t, ctx)
	cmd := exec.CommandContext(ctx, bin, "--http-port", "0", "--mysql-port", "0", "--flight-port", "0", "--be-flight-port", "0", "--password", "pw")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if !readyLine.MatchString(l) {
			t.Fatalf("ready line %q", l)
		}
	case <-ctx.Done():
		t.Fatal("no ready line")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		t.Errorf("extra stdout line %q", l)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) || err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// TestClockStartTimeZoneAndDemo runs the binary on the New York fall-back
// with the demo: the FE reports the configured zone, and its TSO starts at
// --clock-start.
func TestClockStartTimeZoneAndDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t, ctx), "--http-port", "0", "--mysql-port", "0", "--flight-port", "0",
		"--be-flight-port", "0", "--password", "pw", "--demo", "--clock-start", "2026-11-01T05:59:30Z",
		"--time-zone", "America/New_York")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || !readyLine.MatchString(sc.Text()) {
		t.Fatalf("ready line %q: %v", sc.Text(), sc.Err())
	}
	httpAddr := strings.TrimPrefix(strings.Fields(sc.Text())[2], "http=")
	get := func(method, path, body string) map[string]any {
		req, err := http.NewRequestWithContext(ctx, method, "http://"+httpAddr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("root", "pw")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct {
			Code int
			Data map[string]any
		}
		dec := json.NewDecoder(resp.Body)
		dec.UseNumber()
		if err := dec.Decode(&env); err != nil || env.Code != 0 {
			t.Fatalf("%s %s: code %d: %v", method, path, env.Code, err)
		}
		return env.Data
	}
	start := time.Date(2026, 11, 1, 5, 59, 30, 0, time.UTC)
	phys, _ := get("GET", "/api/tso", "")["current_tso_physical_time"].(json.Number).Int64()
	if at := time.UnixMilli(phys).UTC(); at.Before(start) || at.After(start.Add(5*time.Minute)) {
		t.Fatalf("TSO physical time %s, want just after %s", at, start)
	}
	res := get("POST", "/api/query/default_cluster/information_schema",
		`{"stmt":"SELECT @@time_zone, COUNT(*) FROM demo.orders WHERE updated_at >= '2026-11-01 05:59:30'"}`)
	rows, _ := res["data"].([]any)
	if len(rows) != 1 {
		t.Fatalf("result %v", res)
	}
	row := rows[0].([]any)
	if n, _ := row[1].(json.Number).Int64(); row[0] != "America/New_York" || n < 990 {
		t.Errorf("zone and demo rows stamped after --clock-start: %v", row)
	}
}

func TestBadClockStartAndTimeZone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--clock-start", "2026-11-01 05:59:30"}, 2, "--clock-start must be an RFC 3339 instant"},
		{[]string{"--time-zone", "Mars/Olympus"}, 1, "Unknown or incorrect time zone: 'Mars/Olympus'"},
		{[]string{"--max-user-connections", "10001"}, 1, "max_user_connections is not valid, must between 1 and 10000"},
		{[]string{"--cluster-id", "0"}, 2, "--cluster-id must be 1..2147483647"},
	} {
		args := append([]string{"--http-port", "0", "--mysql-port", "0", "--flight-port", "0", "--be-flight-port", "0"}, tc.args...)
		out, err := exec.CommandContext(ctx, binary(t, ctx), args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code || !strings.Contains(string(out), tc.msg) {
			t.Errorf("%v: exit %v, output %s; want exit %d with %q", tc.args, err, out, tc.code, tc.msg)
		}
	}
}

// TestConnectionLimitFlags starts the binary with a user limit of 2 and an
// FE limit of 3: the user's third MySQL connection is refused with the
// limits the flags set.
func TestConnectionLimitFlags(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t, ctx), "--http-port", "0", "--mysql-port", "0", "--flight-port", "0",
		"--be-flight-port", "0", "--password", "pw", "--max-user-connections", "2", "--qe-max-connection", "3")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || !readyLine.MatchString(sc.Text()) {
		t.Fatalf("ready line %q: %v", sc.Text(), sc.Err())
	}
	mysqlAddr := strings.TrimPrefix(strings.Fields(sc.Text())[3], "mysql=")
	db, err := sql.Open("mysql", "root:pw@tcp("+mysqlAddr+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 2 {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		defer conn.Close()
	}
	_, err = db.Conn(ctx)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1203 || me.Message != "Reach limit of connections. Total: 3, User: 2, Current: 2" {
		t.Fatalf("third connection: %v, want error 1203 naming Total 3 and User 2", err)
	}
}
