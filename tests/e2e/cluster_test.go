package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// clusterKey is the checkpoint key of the cluster guard's pipelines.
const clusterKey = "cluster_guard"

// binRun is one run of the built binary with its combined output.
type binRun struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	done chan struct{}
	err  error
}

func (r *binRun) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs.Write(p)
}

func (r *binRun) log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs.String()
}

// startBin runs the binary over a latest-mode input of e2e.guard on srv
// with a file cache in cacheDir and extra input fields; it is stopped at
// cleanup.
func startBin(t *testing.T, srv *dorissim.Server, cacheDir string, extra ...string) *binRun {
	t.Helper()
	dir := t.TempDir()
	in := harness.InputYAML(srv, "e2e.guard", append([]string{"scan_mode: latest", "checkpoint_cache_key: " + clusterKey}, extra...)...)
	var conf strings.Builder
	conf.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\ninput:\n")
	harness.Indent(&conf, in)
	fmt.Fprintf(&conf, "output:\n  file:\n    path: %q\n    codec: lines\n", filepath.Join(dir, "out.jsonl"))
	conf.WriteString(harness.FileCache(cacheDir))
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &binRun{done: make(chan struct{})}
	r.cmd = exec.Command(rpconnect(t), "-c", path)
	r.cmd.Stdout, r.cmd.Stderr = r, r
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends the run with SIGTERM (SIGKILL after 20 s) and waits for it.
func (r *binRun) stop(t *testing.T) {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Errorf("rpconnect-doris did not stop on SIGTERM within 20 s\n%s", r.log())
	}
}

func (r *binRun) waitLog(t *testing.T, timeout time.Duration, text string) {
	t.Helper()
	harness.WaitFor(t, timeout, "the log line "+text, func() bool { return strings.Contains(r.log(), text) })
}

// storedCluster is the cluster id the checkpoint in dir records, "" while
// there is none or it reads torn (a file cache truncates before it writes).
func storedCluster(dir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, clusterKey))
	if err != nil {
		return "", false
	}
	st, err := checkpoint.Decode(b)
	if err != nil {
		return "", false
	}
	return st.ClusterID, true
}

func readCheckpointFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{clusterKey, clusterKey + ".bak"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("checkpoint file %s: %v", name, err)
		}
		out[name] = string(b)
	}
	return out
}

// TestCheckpointOfAnotherClusterStopsTheBinary takes a checkpoint on
// cluster A, then points the binary at cluster B with the same cache: it
// stops before reading, naming both cluster ids and the override, and
// leaves the checkpoint as it was. With checkpoint_accept_cluster_id it
// resumes on B and records B. A checkpoint without an id (an earlier
// build's) resumes on A and gets A's id.
func TestCheckpointOfAnotherClusterStopsTheBinary(t *testing.T) {
	const idA, idB = 1111, 2222
	simA := harness.StartSim(t, dorissim.Config{ClusterID: idA})
	simB := harness.StartSim(t, dorissim.Config{ClusterID: idB})
	for _, srv := range []*dorissim.Server{simA, simB} {
		harness.CreateTable(t, srv, "e2e", "guard", harness.TableOpts{})
	}
	cache := t.TempDir()

	a := startBin(t, simA, cache)
	harness.WaitFor(t, 60*time.Second, "a checkpoint of cluster A", func() bool {
		id, _ := storedCluster(cache)
		return id == fmt.Sprint(idA)
	})
	a.stop(t)
	before := readCheckpointFiles(t, cache)

	b := startBin(t, simB, cache)
	want := fmt.Sprintf("was taken on Doris cluster %d, but fenodes %s reach Doris cluster %d", idA, simB.HTTPAddr(), idB)
	b.waitLog(t, 60*time.Second, want)
	if !strings.Contains(b.log(), fmt.Sprintf(`checkpoint_accept_cluster_id: \"%d\"`, idA)) {
		t.Errorf("the error does not name the override checkpoint_accept_cluster_id:\n%s", b.log())
	}
	b.stop(t)
	if after := readCheckpointFiles(t, cache); after[clusterKey] != before[clusterKey] || after[clusterKey+".bak"] != before[clusterKey+".bak"] {
		t.Fatalf("the refused run changed the checkpoint:\nbefore %v\nafter  %v", before, after)
	}
	// Connecting (the REST client, one Flight session set to UTC) is all
	// the refused run did on B: no binlog window, no table's schema or
	// snapshot plan.
	st := simB.Stats()
	if st.FEIncrQueries != 0 {
		t.Errorf("the refused run sent %d @incr queries to cluster B", st.FEIncrQueries)
	}
	for route, n := range st.HTTP {
		if strings.Contains(route, "{table}") {
			t.Errorf("the refused run sent %d %s requests to cluster B", n, route)
		}
	}

	ok := startBin(t, simB, cache, fmt.Sprintf("checkpoint_accept_cluster_id: \"%d\"", idA))
	harness.WaitFor(t, 60*time.Second, "the checkpoint to record cluster B", func() bool {
		id, _ := storedCluster(cache)
		return id == fmt.Sprint(idB)
	})
	ok.waitLog(t, 30*time.Second, "checkpoint_accept_cluster_id is "+fmt.Sprint(idA))
	ok.stop(t)

	// An earlier build's checkpoint: the same position without cluster_id.
	for name, text := range before {
		old := strings.Replace(text, fmt.Sprintf(`"cluster_id":"%d",`, idA), "", 1)
		if old == text {
			t.Fatalf("no cluster_id in %s: %s", name, text)
		}
		if err := os.WriteFile(filepath.Join(cache, name), []byte(old), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if id, _ := storedCluster(cache); id != "" {
		t.Fatalf("the rewritten checkpoint still records cluster %q", id)
	}
	old := startBin(t, simA, cache)
	harness.WaitFor(t, 60*time.Second, "the earlier build's checkpoint to get cluster A's id", func() bool {
		id, _ := storedCluster(cache)
		return id == fmt.Sprint(idA)
	})
	old.waitLog(t, 30*time.Second, "was written before checkpoints recorded their Doris cluster")
	old.stop(t)
}
