// Package doclinks checks that every relative link and #anchor in the
// repository's Markdown resolves, by GitHub's rules, so a reader of the docs
// never lands on a missing page or section.
package doclinks

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Link is one link of a Markdown file.
type Link struct {
	Line   int
	Target string
}

// Doc is what the checks need of one Markdown file.
type Doc struct {
	Links   []Link
	Anchors map[string]bool
	// Mentions are repository paths named in plain text (`docs/x.md`), as
	// spec descriptions name pages they cannot link.
	Mentions []Link
}

var (
	fence      = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	// [text](target) and ![alt](target), with an optional title; the text
	// may wrap lines.
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	mention    = regexp.MustCompile(`(?:^|[\s(` + "`" + `])((?:docs|config|resources)/[\w./-]*\w\.(?:md|yaml|json))`)
	linkInText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
)

// Parse reads a Markdown file: its links (outside code), its headings'
// anchors and the paths it mentions in plain text.
func Parse(src string) Doc {
	d := Doc{Anchors: map[string]bool{}}
	seen := map[string]int{}
	lines := strings.Split(src, "\n")
	// Text outside fenced code, one block per run of non-blank lines, with
	// code spans blanked so that `[a](b)` in code is not a link.
	var block []string
	blockStart := 0
	flush := func() {
		if len(block) == 0 {
			return
		}
		text := blankCodeSpans(strings.Join(block, "\n"))
		for _, m := range inlineLink.FindAllStringSubmatchIndex(text, -1) {
			d.Links = append(d.Links, Link{Line: blockStart + strings.Count(text[:m[0]], "\n") + 1, Target: text[m[4]:m[5]]})
		}
		for _, m := range refDef.FindAllStringSubmatchIndex(text, -1) {
			d.Links = append(d.Links, Link{Line: blockStart + strings.Count(text[:m[0]], "\n") + 1, Target: text[m[2]:m[3]]})
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(text, -1) {
			d.Anchors[m[1]] = true
		}
		block = nil
	}
	inFence := ""
	for i, l := range lines {
		if inFence != "" {
			if m := fence.FindStringSubmatch(l); m != nil && strings.HasPrefix(m[1], inFence) && strings.TrimSpace(l) == m[1] {
				inFence = ""
			}
			continue
		}
		if m := fence.FindStringSubmatch(l); m != nil {
			flush()
			inFence = m[1]
			continue
		}
		for _, m := range mention.FindAllStringSubmatch(l, -1) {
			d.Mentions = append(d.Mentions, Link{Line: i + 1, Target: m[1]})
		}
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		if m := atxHeading.FindStringSubmatch(l); m != nil {
			flush()
			a := Anchor(m[2])
			if n, ok := seen[a]; ok {
				seen[a] = n + 1
				a += "-" + strconv.Itoa(n+1)
			} else {
				seen[a] = 0
			}
			d.Anchors[a] = true
			block = []string{l}
			blockStart = i
			flush()
			continue
		}
		if len(block) == 0 {
			blockStart = i
		}
		block = append(block, l)
	}
	flush()
	return d
}

// Anchor is the id GitHub gives a heading: its text without Markdown,
// lower-cased, spaces turned into hyphens, and every character other than
// letters, digits, `_` and `-` dropped. Repeats get -1, -2, ... (Parse).
func Anchor(heading string) string {
	text := linkInText.ReplaceAllString(heading, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// blankCodeSpans replaces the content of every code span with spaces,
// keeping offsets and line breaks.
func blankCodeSpans(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := backticks(b, i)
		end := closingRun(b, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < end+n; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end + n
	}
	return string(b)
}

// backticks is the length of the run of backticks at b[i].
func backticks(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}

// closingRun finds the next run of exactly n backticks from i.
func closingRun(b []byte, i, n int) int {
	for i < len(b) {
		if b[i] != '`' {
			i++
			continue
		}
		m := backticks(b, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}
