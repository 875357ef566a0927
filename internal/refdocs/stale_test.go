package refdocs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed reference pages are what the specs render today.
func TestReferencePagesAreCurrent(t *testing.T) {
	pages, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	stale, err := Stale(filepath.Join("..", "..", Dir), Dir, pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Error(s)
	}
}

// A page that differs from its spec, a missing one and one without a
// component are each reported by name, with the command that fixes them.
func TestStaleNamesEachFile(t *testing.T) {
	pages, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for n, b := range pages {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Stale(dir, "d", pages); err != nil || len(got) != 0 {
		t.Fatalf("fresh pages: %v %v", got, err)
	}
	edited := strings.Replace(string(pages["doris_load.md"]), "Stream Load", "Stream Loads", 1)
	if err := os.WriteFile(filepath.Join(dir, "doris_load.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "prometheus.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gone.md"), []byte("# gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Stale(dir, "d", pages)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"d/doris_load.md is stale (line ", "d/prometheus.md is missing: run make docs", "d/gone.md has no component: run make docs"}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) || !strings.HasSuffix(got[i], "run make docs") {
			t.Errorf("message %d: got %q, want it to start with %q", i, got[i], want[i])
		}
	}
}

// Every component has its page, each field its heading.
func TestEveryFieldHasAHeading(t *testing.T) {
	pages, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Pages {
		body := string(pages[p.File])
		for _, f := range []string{map[string]string{
			"doris_binlog": "checkpoint_cache", "doris_load": "table_identifier",
			"kafka_franz": "exactly_once", "doris": "jdbc_url", "prometheus": "prefix",
		}[p.Name]} {
			if !strings.Contains(body, "\n### `"+f+"`\n") {
				t.Errorf("%s: no heading for field %s", p.File, f)
			}
		}
	}
}
