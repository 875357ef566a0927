package refdocs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Unexpected lists the Markdown files in dir that pages does not hold.
func Unexpected(dir string, pages map[string][]byte) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []string
	for _, e := range entries {
		if _, ok := pages[e.Name()]; !ok && !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Stale compares the pages with the files in dir (dirLabel names dir in
// the messages) and returns one line per file that is missing, differs, or
// has no component any more.
func Stale(dir, dirLabel string, pages map[string][]byte) ([]string, error) {
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		label := dirLabel + "/" + n
		got, err := os.ReadFile(filepath.Join(dir, n))
		switch {
		case os.IsNotExist(err):
			out = append(out, label+" is missing: run make docs")
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", label, err)
		case !bytes.Equal(got, pages[n]):
			out = append(out, fmt.Sprintf("%s is stale (%s): run make docs", label, firstDiff(got, pages[n])))
		}
	}
	extra, err := Unexpected(dir, pages)
	if err != nil {
		return nil, err
	}
	for _, n := range extra {
		out = append(out, dirLabel+"/"+n+" has no component: run make docs")
	}
	return out, nil
}

// firstDiff names the first line where the committed page and the spec's
// rendering part, so the message says what changed.
func firstDiff(committed, rendered []byte) string {
	a := strings.Split(string(committed), "\n")
	b := strings.Split(string(rendered), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var la, lb string
		if i < len(a) {
			la = a[i]
		}
		if i < len(b) {
			lb = b[i]
		}
		if la != lb {
			return fmt.Sprintf("line %d is %q, the spec gives %q", i+1, clip(la), clip(lb))
		}
	}
	return "same lines, different bytes"
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
