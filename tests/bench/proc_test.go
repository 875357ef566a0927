package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// procResult is what one rpconnect-doris run cost.
type procResult struct {
	wall    time.Duration // start to exit, or to the stop condition
	cpu     time.Duration // user+sys of the process
	peakRSS int64         // bytes: VmHWM, sampled every 50 ms
	// firstRow is start to the first snapshot row the binary counted, to
	// 50 ms; 0 unless runOpts.rowsAddr was set.
	firstRow time.Duration
}

// clockTick is USER_HZ, the unit of utime/stime in /proc/<pid>/stat; 100 on
// every Linux architecture Go supports.
const clockTick = 100

// procCPU reads utime+stime of a running process.
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(data))
}

// parseStatCPU takes fields 14 and 15 (utime, stime) after the command name,
// which is in parentheses and may contain spaces.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc stat %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat %q", stat)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("utime/stime in /proc stat %q", stat)
	}
	return time.Duration(u+s) * time.Second / clockTick, nil
}

// procStatusKB reads a "Key: N kB" line of /proc/<pid>/status.
func procStatusKB(pid int, key string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(string(data), key)
}

func parseStatusKB(status, key string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc status", key)
}

// fromFirstRow is the rate of rows from the run's first row to its end:
// the read without the start-up before it (process start, listing, and in
// initial mode the wait for the stream start).
func fromFirstRow(p procResult, rows int64) float64 {
	if p.firstRow == 0 || p.wall <= p.firstRow {
		return 0
	}
	return perSec(rows, (p.wall - p.firstRow).Seconds())
}

// runRPConnect runs the binary with cfg. With stop nil it waits for the
// stream to end by itself; otherwise stop is polled every 50 ms and the
// process is measured when it first returns true, then terminated.
// onLine, if set, gets every stdout line with the time it arrived.
func runRPConnect(t *testing.T, ctx context.Context, cfg string, stop func() bool, onLine func(string, time.Time)) procResult {
	t.Helper()
	o := runOpts{onLine: onLine}
	if stop != nil {
		o.stop = func(int) bool { return stop() }
	}
	return runRPConnectWith(t, ctx, cfg, o)
}

// runOpts are the choices of runRPConnectWith beyond runRPConnect's.
type runOpts struct {
	stop   func(pid int) bool      // as runRPConnect's, given the process id
	onLine func(string, time.Time) // as runRPConnect's
	cpus   string                  // taskset CPU list the binary runs on; "" = any
	// rowsAddr is the binary's metrics address; when set, its snapshot row
	// counter is read at each poll until the first row (procResult.firstRow).
	rowsAddr string
}

func runRPConnectWith(t *testing.T, ctx context.Context, cfg string, o runOpts) procResult {
	t.Helper()
	stop, onLine := o.stop, o.onLine
	path := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN")
	cmd := exec.CommandContext(ctx, bin, "run", path)
	if o.cpus != "" {
		// taskset execs the binary: the process id and its /proc are the binary's.
		cmd = exec.CommandContext(ctx, "taskset", "-c", o.cpus, bin, "run", path)
	}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting rpconnect-doris: %v", err)
	}
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		readLines(stdout, onLine)
	}()
	var res procResult
	var sampled int64
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	exited := make(chan error, 1)
	go func() { <-lines; exited <- cmd.Wait() }()
	for done := false; !done; {
		select {
		case err := <-exited:
			if err != nil && stop == nil {
				t.Fatalf("rpconnect-doris: %v", err)
			}
			if res.wall == 0 {
				res.wall = time.Since(start)
				res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			res.peakRSS = sampled
			return res
		case <-tick.C:
			// VmHWM is the high-water mark of this process image only;
			// rusage's maxrss would also count the test process that forked it.
			if kb, err := procStatusKB(cmd.Process.Pid, "VmHWM"); err == nil {
				sampled = max(sampled, kb*1024)
			}
			if o.rowsAddr != "" && res.firstRow == 0 && scrapeRows(o.rowsAddr, "snapshot") > 0 {
				res.firstRow = time.Since(start)
			}
			if stop != nil && res.wall == 0 && stop(cmd.Process.Pid) {
				res.wall = time.Since(start)
				if res.cpu, err = procCPU(cmd.Process.Pid); err != nil {
					t.Fatalf("reading CPU of rpconnect-doris: %v", err)
				}
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
		case <-ctx.Done():
			done = true
		}
	}
	t.Fatalf("rpconnect-doris did not finish: %v", ctx.Err())
	return res
}

func readLines(r io.Reader, onLine func(string, time.Time)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if onLine != nil {
			onLine(sc.Text(), time.Now())
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// binlogRows sums the doris_binlog_rows_total counters of the binlog phase
// from the json_api metrics answer, whose keys are `name{label="v",...}`.
func binlogRows(data []byte) (int64, error) { return phaseRows(data, "binlog") }

// phaseRows is binlogRows for any phase label.
func phaseRows(data []byte, phase string) (int64, error) {
	var counters map[string]json.RawMessage
	if err := json.Unmarshal(data, &counters); err != nil {
		return 0, fmt.Errorf("metrics answer: %w", err)
	}
	var n int64
	for k, v := range counters {
		if !strings.HasPrefix(k, "doris_binlog_rows_total{") || !strings.Contains(k, `phase="`+phase+`"`) {
			continue
		}
		var c int64
		if err := json.Unmarshal(v, &c); err != nil {
			return 0, fmt.Errorf("metric %s: %w", k, err)
		}
		n += c
	}
	return n, nil
}

func scrapeBinlogRows(addr string) int64 { return scrapeRows(addr, "binlog") }

// scrapeRows reads the rows of one phase from the binary's metrics; 0 when
// it does not answer (yet).
func scrapeRows(addr, phase string) int64 {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	n, _ := phaseRows(data, phase)
	return n
}

// inputConfig is a doris_binlog input on the simulator; extra lines are
// indented into it.
func inputConfig(s *sim, table string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "input:\n  doris_binlog:\n    fenodes: %s\n    table_identifier: %s.%s\n    username: root\n    password: \"\"\n", s.http, benchDB, table)
	for _, e := range extra {
		b.WriteString("    " + e + "\n")
	}
	return b.String()
}

const quietTail = "logger:\n  level: WARN\n"
const memoryCache = "cache_resources:\n  - label: cp\n    memory:\n      compaction_interval: \"\"\n"

// captureProfile saves a CPU profile of the binary (BENCH_PPROF=dir), taken
// once it has started reading, for BENCH_PPROF_SECONDS (default 2; the
// profile is lost if the run ends first), then its heap profile beside it
// (.heap.pprof); failures are only logged.
func captureProfile(t *testing.T, addr, path string) {
	secs := os.Getenv("BENCH_PPROF_SECONDS")
	if secs == "" {
		secs = "2"
	}
	time.Sleep(500 * time.Millisecond)
	c := http.Client{Timeout: 60 * time.Second}
	resp, err := c.Get("http://" + addr + "/debug/pprof/profile?seconds=" + secs)
	if err != nil {
		t.Logf("CPU profile: %v", err)
		return
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Logf("CPU profile: %v", err)
		return
	}
	// The heap right after, in use and allocated (pprof -sample_index).
	heap, err := c.Get("http://" + addr + "/debug/pprof/heap")
	if err != nil {
		t.Logf("heap profile: %v", err)
		return
	}
	defer heap.Body.Close()
	if data, err = io.ReadAll(heap.Body); err == nil {
		err = os.WriteFile(strings.TrimSuffix(path, ".pprof")+".heap.pprof", data, 0o644)
	}
	if err != nil {
		t.Logf("heap profile: %v", err)
	}
}
