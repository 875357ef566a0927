package sqlengine

import (
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// rewriteDashComments hands GMS the `--` comments as Doris reads them.
// Doris lets a backslash right before the newline continue a `--` comment
// onto the next line (storage.Lex); GMS ends it at that newline, so the next
// line would run as code. A comment so continued becomes the line break
// that ended it.
func rewriteDashComments(query string) (string, error) {
	if !strings.Contains(query, "\\\n") {
		return query, nil
	}
	toks, err := storage.Lex(query)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	changed := false
	for _, t := range toks {
		if t.Kind != storage.TokComment || !strings.HasPrefix(t.Raw, "--") || !strings.Contains(t.Raw, "\\\n") {
			b.WriteString(t.Raw)
			continue
		}
		if strings.HasSuffix(t.Raw, "\n") {
			b.WriteByte('\n')
		}
		changed = true
	}
	if !changed {
		return query, nil
	}
	return b.String(), nil
}
