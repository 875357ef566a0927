package crash

import (
	"bytes"
	"context"
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
	db              string
	tables          []string
	dir             string // holds the cache directory, outputs and logs
	batchSize       int
	checkpointLimit int
	parallelSplits  int
	// dorisCache keeps checkpoints in the simulator through the doris cache
	// instead of the file cache, and starts every run in a fresh working
	// directory: nothing is kept on local disk between runs.
	dorisCache bool
}

func (pc *pipelineConf) cacheDir() string { return filepath.Join(pc.dir, "cp") }

// cacheYAML is the "cp" checkpoint cache of every run.
func (pc *pipelineConf) cacheYAML() string {
	if !pc.dorisCache {
		return harness.FileCache(pc.cacheDir())
	}
	return fmt.Sprintf("cache_resources:\n  - label: cp\n    doris:\n      jdbc_url: jdbc:mysql://%s\n      table: %s\n", pc.srv.MySQLAddr(), dorisCacheTable)
}

// runDir is the working directory of run no.
func (pc *pipelineConf) runDir(no int) string {
	if !pc.dorisCache {
		return pc.dir
	}
	return filepath.Join(pc.dir, fmt.Sprintf("wd-%02d", no))
}

// configYAML is a whole rpconnect-doris config: one doris_binlog input per
// table behind a broker, metadata kept beside the row, and a file output that
// is new per run so that a line torn by SIGKILL can only end a file.
func (pc *pipelineConf) configYAML(outPath string) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\n")
	b.WriteString("logger:\n  level: INFO\n  format: logfmt\n  add_timestamp: true\n")
	b.WriteString("shutdown_timeout: 30s\n")
	b.WriteString("input:\n  broker:\n    inputs:\n")
	for _, tbl := range pc.tables {
		in := harness.InputYAML(pc.srv, pc.db+"."+tbl,
			"scan_mode: initial",
			fmt.Sprintf("batch_size: %d", pc.batchSize),
			fmt.Sprintf("checkpoint_limit: %d", pc.checkpointLimit),
			fmt.Sprintf("max_parallel_snapshot_splits: %d", pc.parallelSplits),
			"request_tablet_size: 1",
			"debug_metadata: true") // the verifier reads each row's window
		for i, line := range strings.Split(strings.TrimRight(in, "\n"), "\n") {
			prefix := "        "
			if i == 0 {
				prefix = "      - "
			}
			b.WriteString(prefix + line + "\n")
		}
	}
	b.WriteString("pipeline:\n  processors:\n    - mapping: 'root = {\"meta\": @, \"row\": this}'\n")
	fmt.Fprintf(&b, "output:\n  file:\n    path: %q\n    codec: lines\n", outPath)
	b.WriteString(pc.cacheYAML())
	return b.String()
}

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
	for _, d := range []string{pc.cacheDir(), pc.runDir(no)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := &run{
		no:      no,
		outPath: filepath.Join(pc.dir, fmt.Sprintf("out-%02d.jsonl", no)),
		logPath: filepath.Join(pc.dir, fmt.Sprintf("run-%02d.log", no)),
		done:    make(chan struct{}),
	}
	confPath := filepath.Join(pc.runDir(no), fmt.Sprintf("config-%02d.yaml", no))
	if err := os.WriteFile(confPath, []byte(pc.configYAML(r.outPath)), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(r.logPath)
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN"), "-c", confPath)
	r.cmd.Dir = pc.runDir(no)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	if err := r.cmd.Start(); err != nil {
		_ = logFile.Close()
		t.Fatalf("starting run %d: %v", no, err)
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
	return r
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
