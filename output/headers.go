package output

import (
	"net/http"
	"strings"
)

// loadHeaders are the Stream Load headers of one part.
func loadHeaders(c *config, p *part) http.Header {
	h := http.Header{}
	for k, v := range c.headers {
		setRaw(h, k, v)
	}
	setRaw(h, "format", c.format)
	if c.format == formatJSON {
		setRaw(h, "read_json_by_line", "true")
	}
	if p.label != "" {
		setRaw(h, "label", p.label)
	}
	unique := p.model == keysUnique
	deleteSign := p.cdc && unique
	cols := c.columns
	if cols != "" {
		if deleteSign {
			cols += "," + deleteSignColumn
		}
		if c.seqCol != "" {
			cols += "," + c.seqCol
		}
		setRaw(h, "columns", cols)
	} else if deleteSign {
		setRaw(h, "hidden_columns", deleteSignColumn)
	}
	if c.seqCol != "" && unique {
		setRaw(h, "function_column.sequence_col", c.seqCol)
	}
	if c.partial {
		setRaw(h, "partial_columns", "true")
	}
	setIf(h, "max_filter_ratio", c.maxFilterRatio)
	setIf(h, "strict_mode", c.strictMode)
	setIf(h, "timeout", c.timeoutSecs)
	if c.twoPC {
		setRaw(h, "two_phase_commit", "true")
	}
	if c.groupCommit != groupCommitOff {
		setRaw(h, "group_commit", c.groupCommit)
	}
	return h
}

func setIf(h http.Header, k, v string) {
	if v != "" {
		setRaw(h, k, v)
	}
}

// setRaw keeps the header name as Doris documents it (lower case, dots)
// instead of Go's canonical form, as Doris's own clients send it.
func setRaw(h http.Header, k, v string) {
	for old := range h {
		if strings.EqualFold(old, k) {
			delete(h, old)
		}
	}
	h[k] = []string{v}
}
