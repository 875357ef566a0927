package doclinks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnchorFollowsGitHub(t *testing.T) {
	for heading, want := range map[string]string{
		"Offsets in Doris (recommended)":  "offsets-in-doris-recommended",
		"Writing into Kafka or Redpanda":  "writing-into-kafka-or-redpanda",
		"The input's metrics":             "the-inputs-metrics",
		"`summary_objectives[].quantile`": "summary_objectivesquantile",
		"`batching.count`":                "batchingcount",
		"A [linked](x.md) *word*":         "a-linked-word",
		"100-table snapshot ≥ 0.8× row a": "100-table-snapshot--08-row-a",
		"Doris memory and timeout errors": "doris-memory-and-timeout-errors",
		"kafka (`kafka_franz`)":           "kafka-kafka_franz",
		"§4. Connection limits":           "4-connection-limits",
	} {
		if got := Anchor(heading); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	d := Parse("# Title\n\n## Metrics\n\ntext [a](b.md#c) and `[not](a-link.md)`,\n[wrapped\ntext](w.md)\n\n```yaml\n[x](in-code.md)\n# not a heading\n```\n\n### Metrics\n\n[r]: ref.md\n<a id=\"custom\"></a>\n")
	var targets []string
	for _, l := range d.Links {
		targets = append(targets, l.Target)
	}
	if got := strings.Join(targets, " "); got != "b.md#c w.md ref.md" {
		t.Errorf("links %q", got)
	}
	if d.Links[1].Line != 6 {
		t.Errorf("wrapped link on line %d, want 6", d.Links[1].Line)
	}
	for _, a := range []string{"title", "metrics", "metrics-1", "custom"} {
		if !d.Anchors[a] {
			t.Errorf("no anchor %q in %v", a, d.Anchors)
		}
	}
	if d.Anchors["not-a-heading"] {
		t.Error("a comment in a code block became a heading")
	}
}

// Each kind of broken link is reported with its file, line and reason.
func TestCheckReportsBrokenLinks(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n\n[ok](docs/a.md#part-one) [ok](#top) [ok](config/) [web](https://example.com/x#y)\n[gone](docs/missing.md)\n[bad anchor](docs/a.md#part-two)\n[self](#nowhere) [out](../x.md)\n")
	write("docs/a.md", "# A\n\n## Part one\n\n[up](../README.md#top) [code](../config/c.yaml#L3)\n")
	write("docs/orphan.md", "# Orphan\n")
	write("docs/reference/r.md", "See docs/a.md and docs/gone.md.\n")
	write("config/c.yaml", "x: 1\n")
	tree, err := Load(root, []string{"README.md", "docs/a.md", "docs/orphan.md", "docs/reference/r.md"})
	if err != nil {
		t.Fatal(err)
	}
	problems, err := tree.Check("docs/reference")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"README.md:4: docs/missing.md: no such file docs/missing.md",
		"README.md:5: docs/a.md#part-two: no heading in docs/a.md has the anchor #part-two",
		"README.md:6: #nowhere: no heading in README.md has the anchor #nowhere",
		"README.md:6: ../x.md: points outside the repository",
		"docs/a.md:5: ../config/c.yaml#L3: an anchor into config/c.yaml, which is not Markdown",
		"docs/reference/r.md:1: docs/gone.md: names a file that does not exist",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if u := tree.Unreachable("README.md"); strings.Join(u, " ") != "docs/orphan.md docs/reference/r.md" {
		t.Errorf("unreachable %q", u)
	}
}
