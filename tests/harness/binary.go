package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Map // binary name -> *builtBinary
)

type builtBinary struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of a built command of this module: the one named by
// envVar (the Makefile builds them first), or else a fresh `go build` of
// ./cmd/<name> into a temporary directory, once per test process.
func Binary(t testing.TB, name, envVar string) string {
	t.Helper()
	if p := os.Getenv(envVar); p != "" {
		return p
	}
	v, _ := buildOnce.LoadOrStore(name, &builtBinary{})
	b := v.(*builtBinary)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "rpconnect-doris-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", b.path, "./cmd/"+name)
		cmd.Dir = ModuleRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = &buildError{name: name, out: string(out), err: err}
		}
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", name, b.err)
	}
	return b.path
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// ModuleRoot is the repository root, found from this file's location.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
