package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

var readyLine = regexp.MustCompile(`^dorissim ready http=127\.0\.0\.1:\d+ mysql=127\.0\.0\.1:\d+ flight=127\.0\.0\.1:\d+ be_flight=127\.0\.0\.1:\d+$`)

func TestReadyLineAndSIGTERM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "dorissim")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
