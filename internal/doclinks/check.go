package doclinks

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Problem is one link that does not resolve.
type Problem struct {
	File   string // slash path from the root
	Line   int
	Target string
	Why    string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Target, p.Why)
}

// Tree is the Markdown files under a root, parsed, keyed by slash path.
type Tree struct {
	root string
	docs map[string]Doc
}

// Load parses the given Markdown files (slash paths relative to root).
func Load(root string, files []string) (*Tree, error) {
	t := &Tree{root: root, docs: map[string]Doc{}}
	for _, f := range files {
		if err := t.add(f); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *Tree) add(file string) error {
	b, err := os.ReadFile(filepath.Join(t.root, filepath.FromSlash(file)))
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	t.docs[file] = Parse(string(b))
	return nil
}

// Check returns every link of the loaded files that points at no file, at a
// file outside the root, or at an anchor its Markdown target lacks, and, in
// the files under mentionDirs, every plain-text path that names no file of
// this repository (spec descriptions name pages as paths, since `list` and
// `lint` show them outside any page; other docs also name other projects'
// paths).
func (t *Tree) Check(mentionDirs ...string) ([]Problem, error) {
	var out []Problem
	for _, file := range t.files() {
		d := t.docs[file]
		for _, l := range d.Links {
			p, err := t.checkLink(file, l)
			if err != nil {
				return nil, err
			}
			if p != nil {
				out = append(out, *p)
			}
		}
		for _, m := range d.Mentions {
			if !under(file, mentionDirs) {
				break
			}
			if !t.exists(m.Target) {
				out = append(out, Problem{File: file, Line: m.Line, Target: m.Target, Why: "names a file that does not exist"})
			}
		}
	}
	return out, nil
}

// Unreachable lists the loaded files no link chain from start reaches.
func (t *Tree) Unreachable(start string) []string {
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, l := range t.docs[f].Links {
			target, _, ok := t.resolve(f, l.Target)
			if ok && !seen[target] {
				if _, loaded := t.docs[target]; loaded {
					seen[target] = true
					queue = append(queue, target)
				}
			}
		}
	}
	var out []string
	for _, f := range t.files() {
		if !seen[f] {
			out = append(out, f)
		}
	}
	return out
}

func (t *Tree) files() []string {
	out := make([]string, 0, len(t.docs))
	for f := range t.docs {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// resolve turns a link of file into a slash path from the root and an
// anchor; ok is false for links that leave the repository's files (URLs).
func (t *Tree) resolve(file, target string) (string, string, bool) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(target, "//") {
		return "", "", false
	}
	p := u.Path
	if p == "" {
		return file, u.Fragment, true
	}
	if strings.HasPrefix(p, "/") {
		return path.Clean(strings.TrimPrefix(p, "/")), u.Fragment, true
	}
	return path.Clean(path.Join(path.Dir(file), p)), u.Fragment, true
}

func (t *Tree) checkLink(file string, l Link) (*Problem, error) {
	if _, err := url.Parse(l.Target); err != nil {
		return &Problem{File: file, Line: l.Line, Target: l.Target, Why: "not a valid URL: " + err.Error()}, nil
	}
	target, anchor, ok := t.resolve(file, l.Target)
	if !ok {
		return nil, nil // an external URL
	}
	if target == ".." || strings.HasPrefix(target, "../") {
		return &Problem{File: file, Line: l.Line, Target: l.Target, Why: "points outside the repository"}, nil
	}
	if !t.exists(target) {
		return &Problem{File: file, Line: l.Line, Target: l.Target, Why: "no such file " + target}, nil
	}
	if anchor == "" {
		return nil, nil
	}
	if !strings.HasSuffix(target, ".md") {
		return &Problem{File: file, Line: l.Line, Target: l.Target, Why: "an anchor into " + target + ", which is not Markdown"}, nil
	}
	d, loaded := t.docs[target]
	if !loaded {
		if err := t.add(target); err != nil {
			return nil, err
		}
		d = t.docs[target]
		delete(t.docs, target) // only parsed for its anchors
	}
	if !d.Anchors[anchor] {
		return &Problem{File: file, Line: l.Line, Target: l.Target, Why: "no heading in " + target + " has the anchor #" + anchor}, nil
	}
	return nil, nil
}

func (t *Tree) exists(slashPath string) bool {
	_, err := os.Stat(filepath.Join(t.root, filepath.FromSlash(slashPath)))
	return err == nil
}

func under(file string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(file, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
