package ops

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/offsetcmd"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const offsetsPassword = "offsets-Pw-9f3c"

// offsetsEnv is a pipeline of the built binary over ops.a and ops.b into a
// file cache, each run writing its events to a file of its own.
type offsetsEnv struct {
	t        *testing.T
	srv      *dorissim.Server
	bin      string
	dir      string
	conf     string // config path, its output path templated by run
	runs     int
	wa, wb   *harness.Workload
	cacheDir string
}

// offsetEvent is what the pipeline's mapping writes per message.
type offsetEvent struct {
	Table string `json:"table"`
	Op    string `json:"op"`
	TSO   int64  `json:"tso"`
	LSN   int64  `json:"lsn"`
	ID    int64  `json:"id"`
}

func newOffsetsEnv(t *testing.T) *offsetsEnv {
	srv := harness.StartSim(t, dorissim.Config{Password: offsetsPassword})
	e := &offsetsEnv{t: t, srv: srv, bin: harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN"), dir: t.TempDir()}
	harness.CreateTable(t, srv, "ops", "a", harness.TableOpts{Buckets: 2})
	harness.CreateTable(t, srv, "ops", "b", harness.TableOpts{Buckets: 2})
	e.wa, e.wb = harness.NewWorkload(srv, "ops", "a", 1), harness.NewWorkload(srv, "ops", "b", 2)
	e.cacheDir = filepath.Join(e.dir, "cache")
	if err := os.Mkdir(e.cacheDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// The password comes from the environment, as in production configs.
	conf := fmt.Sprintf(`logger:
  level: WARN
http:
  enabled: false
input:
  doris_binlog:
    fenodes: %s
    tables: [ops.a, ops.b]
    username: root
    password: ${OFFSETS_TEST_PASSWORD}
    scan_mode: initial
    binlog_poll_interval: 1s
    checkpoint_cache: cp
pipeline:
  processors:
    - mapping: 'root = {"table": @database_schema + "." + @table, "op": @operation, "tso": @tso.or(0), "lsn": @lsn.or(0), "id": this.id}'
output:
  file:
    path: ${OFFSETS_TEST_OUT}
    codec: lines
`, srv.HTTPAddr())
	e.conf = filepath.Join(e.dir, "config.yaml")
	res := filepath.Join(e.dir, "resources.yaml")
	if err := os.WriteFile(e.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res, []byte(harness.FileCache(e.cacheDir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *offsetsEnv) env(out string) []string {
	return append(os.Environ(), "OFFSETS_TEST_PASSWORD="+offsetsPassword, "OFFSETS_TEST_OUT="+out)
}

// insert adds one row to the table in its own transaction, n times.
func (e *offsetsEnv) insert(w *harness.Workload, n int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range n {
		if err := w.Insert(ctx, 1); err != nil {
			e.t.Fatal(err)
		}
	}
}

// binRun is one run of the binary.
type binRun struct {
	cmd     *exec.Cmd
	done    chan error
	out     string
	logs    *bytes.Buffer
	stopped bool // stop ran: cmd.ProcessState is written by Wait, so it is not read
}

func (e *offsetsEnv) start() *binRun {
	e.t.Helper()
	e.runs++
	p := &binRun{done: make(chan error, 1), out: filepath.Join(e.dir, fmt.Sprintf("run%d.jsonl", e.runs)), logs: &bytes.Buffer{}}
	p.cmd = exec.Command(e.bin, "-r", filepath.Join(e.dir, "resources.yaml"), "-c", e.conf)
	p.cmd.Env = e.env(p.out)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	e.t.Cleanup(func() { p.stop(e.t) })
	return p
}

func (p *binRun) stop(t *testing.T) {
	if p.stopped {
		return
	}
	p.stopped = true
	_ = p.cmd.Process.Signal(syscall.SIGTERM) // fails harmlessly if it exited: done holds its end
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("the pipeline did not stop within 30s")
	}
}

func (p *binRun) events(t *testing.T) []offsetEvent {
	t.Helper()
	f, err := os.Open(p.out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []offsetEvent
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev offsetEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue // a line still being written
		}
		out = append(out, ev)
	}
	return out
}

// waitEvents waits until cond holds for the run's events.
func (p *binRun) waitEvents(t *testing.T, what string, cond func([]offsetEvent) bool) []offsetEvent {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		evs := p.events(t)
		if cond(evs) {
			return evs
		}
		select {
		case err := <-p.done:
			t.Fatalf("the pipeline exited while waiting for %s: %v\n%s", what, err, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; have %d events\n%s", what, len(evs), p.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// offsets runs `rpconnect-doris offsets args... CONFIG` and returns its
// output and exit error. No output may hold the password.
func (e *offsetsEnv) offsets(args ...string) (string, string, error) {
	e.t.Helper()
	full := append([]string{"offsets"}, args...)
	full = append(full[:2:2], append([]string{"-r", filepath.Join(e.dir, "resources.yaml")}, full[2:]...)...)
	full = append(full, e.conf)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, full...)
	cmd.Env = e.env(filepath.Join(e.dir, "unused.jsonl"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if strings.Contains(stdout.String()+stderr.String(), offsetsPassword) {
		e.t.Fatalf("offsets %v printed the password:\n%s%s", args, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String(), err
}

func (e *offsetsEnv) mustOffsets(args ...string) string {
	e.t.Helper()
	out, errOut, err := e.offsets(args...)
	if err != nil {
		e.t.Fatalf("offsets %v: %v\n%s%s", args, err, out, errOut)
	}
	return out
}

func (e *offsetsEnv) showJSON() offsetcmd.Report {
	e.t.Helper()
	var r offsetcmd.Report
	out := e.mustOffsets("show", "--format", "json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("offsets show --format json: %v\n%s", err, out)
	}
	return r
}

func (e *offsetsEnv) editJSON(args ...string) offsetcmd.Edit {
	e.t.Helper()
	var ed offsetcmd.Edit
	out := e.mustOffsets(append(args, "--format", "json")...)
	if err := json.Unmarshal([]byte(out), &ed); err != nil {
		e.t.Fatalf("offsets %v: %v\n%s", args, err, out)
	}
	return ed
}

// checkpointFiles is the stored checkpoint's bytes, both copies.
func (e *offsetsEnv) checkpointFiles(key string) string {
	e.t.Helper()
	a, err := os.ReadFile(filepath.Join(e.cacheDir, key))
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(e.cacheDir, key+checkpoint.BackupSuffix))
	return string(a) + "\n" + string(b)
}

// waitIdle waits until the last save is older than the running window
// (3 × binlog_poll_interval, at least 10 s), as a stopped pipeline's is.
func (e *offsetsEnv) waitIdle(key string) {
	e.t.Helper()
	st := harness.StoredStateFile(e.t, e.cacheDir, key)
	if wait := time.Until(st.SavedAt.Add(10*time.Second + 200*time.Millisecond)); wait > 0 {
		time.Sleep(wait)
	}
}

func tableEvents(evs []offsetEvent, table string, binlogOnly bool) []offsetEvent {
	var out []offsetEvent
	for _, ev := range evs {
		if ev.Table == table && (!binlogOnly || ev.TSO > 0) {
			out = append(out, ev)
		}
	}
	return out
}

func tableOf(t *testing.T, r *offsetcmd.Report, name string) offsetcmd.TableReport {
	t.Helper()
	for _, tr := range r.Tables {
		if tr.Table == name {
			return tr
		}
	}
	t.Fatalf("table %s is not in the report: %+v", name, r.Tables)
	return offsetcmd.TableReport{}
}

// TestOffsetsCommand drives `rpconnect-doris offsets` on a real pipeline:
// show in text and JSON, set one table back to a TSO (it re-delivers from
// there, the other goes on without duplicates), reset one table (only it
// is snapshotted again), refusal while running, --force and --dry-run.
func TestOffsetsCommand(t *testing.T) {
	e := newOffsetsEnv(t)
	e.insert(e.wa, 3)
	e.insert(e.wb, 3)
	// An initial snapshot holds what was committed before the current Doris
	// second; rows of that second come as changes. Let it pass, so the
	// three rows are snapshot rows and run 1's changes are the later three.
	time.Sleep(1100 * time.Millisecond)

	// Run 1: the snapshot, then three changes per table.
	p1 := e.start()
	p1.waitEvents(t, "the snapshot", func(evs []offsetEvent) bool { return len(evs) >= 6 })
	e.insert(e.wa, 3)
	e.insert(e.wb, 3)
	evs1 := p1.waitEvents(t, "the changes", func(evs []offsetEvent) bool {
		return len(tableEvents(evs, "ops.a", true)) >= 3 && len(tableEvents(evs, "ops.b", true)) >= 3
	})
	r := e.showJSON() // show works while running: it changes nothing
	key := r.Key
	if r.Cache != "cp" || key == "" {
		t.Fatalf("report names cache %q key %q", r.Cache, key)
	}
	// Refused while the pipeline runs; --force passes (as a dry run here,
	// not to disturb the pipeline).
	out, errOut, err := e.offsets("set", "--table", "ops.a", "--tso", "1")
	if err == nil || !strings.Contains(errOut, "seems to be running") || !strings.Contains(errOut, "--force") {
		t.Fatalf("set while running: err %v\n%s%s; want a refusal naming --force", err, out, errOut)
	}
	ed := e.editJSON("reset", "--table", "ops.b", "--dry-run", "--force")
	if ed.Written || !ed.DryRun || tableOf(t, ed.After, "ops.b").Phase != "snapshot" {
		t.Fatalf("forced dry run while running: %+v", ed)
	}
	p1.stop(t)
	evs1 = p1.events(t)
	e.waitIdle(key)

	// show, text and JSON.
	r = e.showJSON()
	if !r.Doris.Reachable || r.Chain == nil || len(r.Tables) != 2 {
		t.Fatalf("show: %+v", r)
	}
	a1, b1 := tableEvents(evs1, "ops.a", true), tableEvents(evs1, "ops.b", true)
	for _, name := range []string{"ops.a", "ops.b"} {
		tr := tableOf(t, &r, name)
		if tr.Phase != "binlog" || tr.Position == nil || tr.TTLSeconds == nil || *tr.TTLSeconds != 86400 || tr.HeadroomSeconds == nil || tr.AgeSeconds == nil {
			t.Fatalf("show %s: %+v", name, tr)
		}
		if last := max(a1[len(a1)-1].TSO, b1[len(b1)-1].TSO); tr.Position.TSO < last {
			t.Errorf("show %s: position tso %d is before the last delivered change %d", name, tr.Position.TSO, last)
		}
	}
	text := e.mustOffsets("show")
	t.Logf("offsets show:\n%s", text)
	for _, want := range []string{"cache cp, key " + key, "ops.a", "ops.b", "binlog", "Doris time", "HEADROOM"} {
		if !strings.Contains(text, want) {
			t.Errorf("show (text) lacks %q:\n%s", want, text)
		}
	}

	// --dry-run changes nothing.
	target := a1[1] // the second change of ops.a
	before := e.checkpointFiles(key)
	ed = e.editJSON("set", "--table", "ops.a", "--tso", fmt.Sprint(target.TSO), "--dry-run")
	if a := tableOf(t, ed.After, "ops.a"); ed.Written || a.Phase != "catchup" || a.Position == nil || a.Position.TSO != target.TSO || a.Position.LSN != nil {
		t.Fatalf("dry run: %+v", ed)
	}
	if e.checkpointFiles(key) != before {
		t.Fatal("offsets set --dry-run changed the checkpoint")
	}

	// set --tso: ops.a re-delivers from the target on; ops.b goes on.
	text = e.mustOffsets("set", "--table", "ops.a", "--tso", fmt.Sprint(target.TSO))
	t.Logf("offsets set:\n%s", text)
	if !strings.Contains(text, "Before:") || !strings.Contains(text, "After (written):") || !strings.Contains(text, "catchup") {
		t.Fatalf("set output:\n%s", text)
	}
	r = e.showJSON()
	if tableOf(t, &r, "ops.a").Phase != "catchup" || tableOf(t, &r, "ops.b").Phase != "binlog" {
		t.Fatalf("after set: %+v", r.Tables)
	}
	e.insert(e.wa, 1)
	e.insert(e.wb, 1)
	p2 := e.start()
	evs2 := p2.waitEvents(t, "the re-delivered and new changes", func(evs []offsetEvent) bool {
		return len(tableEvents(evs, "ops.a", false)) >= 3 && len(tableEvents(evs, "ops.b", false)) >= 1
	})
	time.Sleep(2 * time.Second) // a couple of polls: nothing more may come
	p2.stop(t)
	evs2 = p2.events(t)
	var wantA []int64
	for _, ev := range a1 {
		if ev.TSO >= target.TSO {
			wantA = append(wantA, ev.ID)
		}
	}
	a2, b2 := tableEvents(evs2, "ops.a", false), tableEvents(evs2, "ops.b", false)
	if len(a2) != len(wantA)+1 {
		t.Fatalf("run 2 delivered %d events of ops.a, want the %d changes from tso %d again and the new one: %+v", len(a2), len(wantA), target.TSO, a2)
	}
	for i, id := range wantA {
		if a2[i].ID != id || a2[i].TSO < target.TSO {
			t.Errorf("run 2 ops.a event %d: %+v, want the change of id %d again", i, a2[i], id)
		}
	}
	if len(b2) != 1 || b2[0].TSO <= b1[len(b1)-1].TSO {
		t.Fatalf("run 2 delivered ops.b %+v; want only the one new change", b2)
	}
	if tableOf(t, ptr(e.showJSON()), "ops.a").Phase != "binlog" {
		t.Error("ops.a did not rejoin the chain")
	}
	e.waitIdle(key)

	// reset: ops.b is snapshotted again, ops.a streams on.
	ed = e.editJSON("reset", "--table", "ops.b")
	if !ed.Written || tableOf(t, ed.Before, "ops.b").Phase != "binlog" || tableOf(t, ed.After, "ops.b").Phase != "snapshot" || tableOf(t, ed.After, "ops.a").Phase != "binlog" {
		t.Fatalf("reset: %+v", ed)
	}
	e.insert(e.wa, 1)
	p3 := e.start()
	evs3 := p3.waitEvents(t, "the new snapshot of ops.b", func(evs []offsetEvent) bool {
		return len(tableEvents(evs, "ops.b", false)) >= 7 && len(tableEvents(evs, "ops.a", false)) >= 1
	})
	time.Sleep(2 * time.Second)
	p3.stop(t)
	evs3 = p3.events(t)
	var reads int
	for _, ev := range tableEvents(evs3, "ops.b", false) {
		if ev.Op == "read" {
			reads++
		}
	}
	if b3 := tableEvents(evs3, "ops.b", false); reads != 7 || len(b3) != 7 {
		t.Errorf("run 3 delivered %d events of ops.b, %d of them snapshot rows; want its 7 rows, once", len(b3), reads)
	}
	if a3 := tableEvents(evs3, "ops.a", false); len(a3) != 1 || a3[0].Op != "insert" {
		t.Errorf("run 3 delivered ops.a %+v; want only its one new change, no snapshot", a3)
	}
}

func ptr[T any](v T) *T { return &v }
