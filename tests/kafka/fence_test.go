package kafkae2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// instance is a running rpconnect-doris binary whose log goes to a file.
type instance struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func startInstance(t *testing.T, name, conf string) *instance {
	t.Helper()
	dir := t.TempDir()
	confPath := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &instance{log: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(in.log)
	if err != nil {
		t.Fatal(err)
	}
	in.cmd = exec.Command(harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN"), "-c", confPath)
	in.cmd.Dir = dir
	in.cmd.Stdout, in.cmd.Stderr = f, f
	if err := in.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = in.cmd.Wait(); _ = f.Close(); close(in.done) }()
	t.Cleanup(func() {
		_ = in.cmd.Process.Kill()
		<-in.done
		if t.Failed() {
			b, _ := os.ReadFile(in.log)
			t.Logf("%s's log:\n%s", name, b)
		}
	})
	return in
}

// lines returns the log lines that contain sub.
func (in *instance) lines(t *testing.T, sub string) []string {
	t.Helper()
	b, err := os.ReadFile(in.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// TestTwoBinariesOnOneTransactionalID runs a second rpconnect-doris with
// the same transactional_id while the first one streams: the second fences
// the first, which stops with an error saying that another instance took
// over, and does not fence the second back. Every change lands once.
func TestTwoBinariesOnOneTransactionalID(t *testing.T) {
	srv, start := shopSim(t)
	kc := startKafka(t)
	brokers := kc.ListenAddrs()
	conf := func() string {
		var b strings.Builder
		b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\n")
		b.WriteString("input:\n")
		harness.Indent(&b, harness.SelectYAML(srv, `include: ['shop\.orders']`, "scan_mode: from-timestamp", `scan_timestamp: "`+start+`"`, "batch_size: 10"))
		b.WriteString("pipeline:\n  threads: 1\noutput:\n")
		harness.Indent(&b, cdcOutput(brokers, "exactly_once: true", "transactional_id: two-e2e", "timeout: 3s"))
		b.WriteString(harness.FileCache(t.TempDir())) // a checkpoint of its own
		return b.String()
	}
	w := harness.NewWorkload(srv, "shop", "orders", 31)
	c := consume(t, brokers)

	first := startInstance(t, "first", conf())
	runWorkload(t, w, 20)
	waitChangesOnce(t, srv, c, start, "the first instance's changes")

	second := startInstance(t, "second", conf())
	const took = `another instance took over transactional_id \"two-e2e\"`
	deadline := time.Now().Add(60 * time.Second)
	for len(first.lines(t, took)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the first instance never said that another instance took over its transactional_id")
		}
		if err := w.Step(ctxTimeout(t, time.Minute)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	runWorkload(t, w, 20)
	waitChangesOnce(t, srv, c, start, "every change, with the second instance")
	if l := second.lines(t, "took over"); len(l) != 0 {
		t.Errorf("the second instance was fenced back: %s", l[0])
	}
	if l := second.lines(t, "level=error"); len(l) != 0 {
		t.Errorf("the second instance logged errors: %s", strings.Join(l, "\n"))
	}
	if first.cmd.ProcessState != nil {
		t.Errorf("the first instance exited (%v); its stream should stay stopped on the error", first.cmd.ProcessState)
	}
}
