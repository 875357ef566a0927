package crash

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// pipelineConf is what every run of the binary shares.
type pipelineConf struct {
	srv             *dorissim.Server
	dir             string // holds the cache directory, outputs and logs
	batchSize       int
	checkpointLimit int
	parallelSplits  int // max_parallel_snapshot_splits
	parallelTables  int // max_parallel_snapshot_tables
	// cacheDB, when set, is the doris-cache variant: the checkpoint lives
	// in the simulator (read back through this connection) instead of the
	// file cache, and every run starts in a new working directory.
	cacheDB *sql.DB
}

func (pc *pipelineConf) cacheDir() string { return filepath.Join(pc.dir, "cp") }

// discoveryInterval is short so that a table created or dropped mid-run is
// noticed within a few seconds.
const discoveryInterval = "2s"

// configYAML is a whole rpconnect-doris config: one doris_binlog input
// following every table of the crash database, metadata kept beside the
// row, and a file output that is new per run so that a line torn by SIGKILL
// can only end a file.
func (pc *pipelineConf) configYAML(outPath string) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\n")
	// Debug: the lines the suite reads about a late table (logs_test.go)
	// name one table each, which the input logs at debug level only.
	b.WriteString("logger:\n  level: DEBUG\n  format: logfmt\n  add_timestamp: true\n")
	b.WriteString("shutdown_timeout: 30s\n")
	b.WriteString("input:\n")
	fmt.Fprintf(&b, `  doris_binlog:
    fenodes: %s
    include: [ %q ]
    table_discovery_interval: %s
    username: root
    password: ""
    binlog_poll_interval: 1s
    checkpoint_cache: cp
    checkpoint_cache_key: %s
    scan_mode: initial
    batch_size: %d
    checkpoint_limit: %d
    max_parallel_snapshot_splits: %d
    max_parallel_snapshot_tables: %d
    request_tablet_size: 1
    snapshot_query_rows: 0
    debug_metadata: true
`, pc.srv.HTTPAddr(), db+`\..*`, discoveryInterval, checkpointKey, pc.batchSize, pc.checkpointLimit, pc.parallelSplits, pc.parallelTables)
	// One processor thread: with more, Benthos hands batches to the output
	// in whichever order the threads finish, and the order checks would
	// see Benthos's order instead of the input's.
	b.WriteString("pipeline:\n  threads: 1\n  processors:\n    - mapping: 'root = {\"meta\": @, \"row\": this}'\n")
	fmt.Fprintf(&b, "output:\n  file:\n    path: %q\n    codec: lines\n", outPath)
	b.WriteString(pc.cacheYAML())
	return b.String()
}

func configName(no int) string { return fmt.Sprintf("config-%02d.yaml", no) }

// run is one start of the binary.
type run struct {
	no      int
	cmd     *exec.Cmd
	outPath string
	logPath string
	done    chan struct{}
	waitErr error
}

// startRun writes the run's config and starts the binary with its stdout and
// stderr going to the run's log file. The child is killed at cleanup.
func startRun(t *testing.T, pc *pipelineConf, no int) *run {
	t.Helper()
	dir := pc.runDir(no)
	if pc.cacheDB == nil {
		dir = pc.cacheDir() // inside the working directory
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &run{
		no:      no,
		outPath: filepath.Join(pc.dir, fmt.Sprintf("out-%02d.jsonl", no)),
		logPath: filepath.Join(pc.dir, fmt.Sprintf("run-%02d.log", no)),
		done:    make(chan struct{}),
	}
	confPath := filepath.Join(pc.runDir(no), configName(no))
	if err := os.WriteFile(confPath, []byte(pc.configYAML(r.outPath)), 0o600); err != nil {
		t.Fatal(err)
	}
	r.launch(t, confPath, pc.runDir(no))
	return r
}

// launch starts the binary on confPath in dir, stdout and stderr going to
// the run's log file; the child is killed at cleanup.
func (r *run) launch(t *testing.T, confPath, dir string) {
	t.Helper()
	logFile, err := os.Create(r.logPath)
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN"), "-c", confPath)
	r.cmd.Dir = dir
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	if err := r.cmd.Start(); err != nil {
		_ = logFile.Close()
		t.Fatalf("starting run %d: %v", r.no, err)
	}
	go func() {
		r.waitErr = r.cmd.Wait()
		_ = logFile.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		if !r.exited() {
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
}

func (r *run) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and waits (bounded) for the process to be gone.
func (r *run) kill(t *testing.T) {
	t.Helper()
	if r.exited() {
		t.Fatalf("run %d ended before it was killed: %v\n%s", r.no, r.waitErr, r.logTail())
	}
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		r.wait(t, 30*time.Second)
		t.Fatalf("killing run %d: %v (it exited: %v)\n%s", r.no, err, r.waitErr, r.logTail())
	}
	r.wait(t, 30*time.Second)
}

// terminate sends SIGTERM and returns the exit code once the process ended.
func (r *run) terminate(t *testing.T, timeout time.Duration) int {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("stopping run %d: %v", r.no, err)
	}
	r.wait(t, timeout)
	var ee *exec.ExitError
	switch {
	case r.waitErr == nil:
		return 0
	case errors.As(r.waitErr, &ee):
		return ee.ExitCode()
	default:
		t.Fatalf("run %d: %v", r.no, r.waitErr)
		return -1
	}
}

func (r *run) wait(t *testing.T, timeout time.Duration) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(timeout):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("run %d did not end within %s\n%s", r.no, timeout, r.logTail())
	}
}

// log returns the run's whole log.
func (r *run) log() string {
	b, err := os.ReadFile(r.logPath)
	if err != nil {
		return fmt.Sprintf("(log of run %d unreadable: %v)", r.no, err)
	}
	return string(b)
}

// logTail is the end of the log, for failure messages.
func (r *run) logTail() string {
	s := r.log()
	if len(s) > 8000 {
		s = "..." + s[len(s)-8000:]
	}
	return fmt.Sprintf("--- log of run %d ---\n%s", r.no, s)
}

// lineCount counts the complete lines the run has written so far.
func (r *run) lineCount() int {
	b, err := os.ReadFile(r.outPath)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte{'\n'})
}

// waitLines polls until the run has written at least n lines. It returns
// false when ctx ends first or the run exits.
func (r *run) waitLines(ctx context.Context, n int) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if r.lineCount() >= n {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-r.done:
			return r.lineCount() >= n
		case <-tick.C:
		}
	}
}

// waitLog waits (bounded) until the run's log contains text.
func (r *run) waitLog(t *testing.T, timeout time.Duration, text string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(r.log(), text) {
		if r.exited() {
			t.Fatalf("run %d exited (%v) before logging %q\n%s", r.no, r.waitErr, text, r.logTail())
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %d did not log %q within %s\n%s", r.no, text, timeout, r.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
