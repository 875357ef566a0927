package doclinks

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the module root, seen from this package's directory.
const repoRoot = "../.."

// docFiles lists README.md, CHANGELOG.md and every Markdown file under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CHANGELOG.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Every relative link and anchor of the docs resolves, and every path a
// page (or a spec description, through its reference page) names exists.
func TestDocLinksResolve(t *testing.T) {
	tree, err := Load(repoRoot, docFiles(t))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := tree.Check("docs/reference")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// A newcomer starting at the README can reach every page of docs/.
func TestEveryDocPageIsLinkedFromTheReadme(t *testing.T) {
	tree, err := Load(repoRoot, docFiles(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tree.Unreachable("README.md") {
		if f == "CHANGELOG.md" {
			continue
		}
		t.Errorf("%s: no chain of links from README.md reaches it; link it from README.md's \"Where to go next\"", f)
	}
}
