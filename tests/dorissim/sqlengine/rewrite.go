package sqlengine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// aliasStoppers are the words that may follow a table reference without
// being its alias.
var aliasStoppers = map[string]bool{
	"where": true, "order": true, "group": true, "limit": true, "having": true, "join": true,
	"inner": true, "left": true, "right": true, "cross": true, "full": true, "natural": true,
	"straight_join": true, "on": true, "using": true, "union": true, "except": true,
	"intersect": true, "window": true, "for": true, "lock": true, "into": true, "partition": true,
	"outer": true, "set": true, "values": true, "offset": true,
}

// tableRef is a parsed `db.tbl` / `tbl` reference in significant tokens.
type tableRef struct {
	db, table  string
	start, end int // indexes into the significant tokens, end exclusive
}

// columnLister returns a table's visible columns, for expanding `*`.
type columnLister func(db, table string) []string

// textEdit replaces query[start:end] with text.
type textEdit struct {
	start, end int
	text       string
}

// rewriteDorisRefs turns `<table>@incr(...)` and `<table> TABLET(...)` into
// calls of the simulator's table functions; everything else is left to GMS.
// The binlog columns of an @incr are hidden, as in Doris: a `*` in the select
// list expands to the table's own columns only, so they appear when named.
func rewriteDorisRefs(query, currentDB string, cols columnLister) (string, bool, error) {
	toks, err := tokenize(query)
	if err != nil {
		return "", false, err
	}
	sig := significant(toks)
	var edits []textEdit
	for i := 0; i < len(sig); i++ {
		ref, ok := parseTableRef(sig, i)
		if !ok {
			continue
		}
		repl, next, ok, err := rewriteAt(sig, ref, currentDB)
		if err != nil {
			return "", false, err
		}
		if !ok {
			continue
		}
		edits = append(edits, textEdit{start: sig[ref.start].start, end: sig[next-1].end, text: repl.call})
		if repl.incr && cols != nil {
			edits = append(edits, starEdits(sig, ref.start, repl.alias, cols(repl.db, ref.table))...)
		}
		i = next - 1
	}
	if len(edits) == 0 {
		return query, false, nil
	}
	return applyEdits(query, edits), true, nil
}

func applyEdits(query string, edits []textEdit) string {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.start < last {
			continue // a star already expanded for another @incr of the same SELECT
		}
		b.WriteString(query[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(query[last:])
	return b.String()
}

// starEdits expands `*` and `<alias>.*` in the select list of the SELECT
// whose FROM holds the table reference at refIdx.
func starEdits(sig []token, refIdx int, alias string, columns []string) []textEdit {
	if len(columns) == 0 {
		return nil
	}
	sel := enclosingSelect(sig, refIdx)
	if sel < 0 {
		return nil
	}
	qualified := make([]string, len(columns))
	for i, c := range columns {
		qualified[i] = quoteIdent(alias) + "." + quoteIdent(c)
	}
	list := strings.Join(qualified, ", ")
	var out []textEdit
	depth := 0
	for k := sel + 1; k < refIdx; k++ {
		t := sig[k]
		switch {
		case isPunct(t, "("):
			depth++
		case isPunct(t, ")"):
			depth--
		case depth == 0 && isWord(t, "from"):
			return out
		case depth == 0 && isPunct(t, "*") && startsItem(sig[k-1]) && endsItem(sig, k+1):
			out = append(out, textEdit{start: t.start, end: t.end, text: list})
		case depth == 0 && isPunct(t, "*") && k >= 2 && isPunct(sig[k-1], ".") && isIdentTok(sig[k-2]) &&
			strings.EqualFold(identValue(sig[k-2]), alias) && endsItem(sig, k+1):
			out = append(out, textEdit{start: sig[k-2].start, end: t.end, text: list})
		}
	}
	return out
}

// enclosingSelect finds the SELECT keyword of the query level that holds
// sig[i], walking back over balanced parentheses.
func enclosingSelect(sig []token, i int) int {
	depth := 0
	for k := i - 1; k >= 0; k-- {
		switch {
		case isPunct(sig[k], ")"):
			depth++
		case isPunct(sig[k], "("):
			if depth == 0 {
				return -1
			}
			depth--
		case depth == 0 && isWord(sig[k], "select"):
			return k
		}
	}
	return -1
}

func startsItem(prev token) bool {
	return isWord(prev, "select") || isWord(prev, "distinct") || isWord(prev, "all") || isPunct(prev, ",")
}

func endsItem(sig []token, k int) bool {
	return k < len(sig) && (isPunct(sig[k], ",") || isWord(sig[k], "from"))
}

func isIdentTok(t token) bool { return t.kind == tkWord || t.kind == tkQIdent }

func parseTableRef(sig []token, i int) (tableRef, bool) {
	if !isIdentTok(sig[i]) {
		return tableRef{}, false
	}
	if i > 0 && isPunct(sig[i-1], ".") {
		return tableRef{}, false // the table part of db.tbl, already seen at db
	}
	if i+2 < len(sig) && isPunct(sig[i+1], ".") && isIdentTok(sig[i+2]) {
		return tableRef{db: identValue(sig[i]), table: identValue(sig[i+2]), start: i, end: i + 3}, true
	}
	return tableRef{table: identValue(sig[i]), start: i, end: i + 1}, true
}

// replacement is a rewritten table reference.
type replacement struct {
	call      string // the table function call, with an alias
	alias, db string
	incr      bool
}

// rewriteAt rewrites the clause after ref if it is @incr(...) or TABLET(...).
// It returns the replacement and the index after the consumed tokens.
func rewriteAt(sig []token, ref tableRef, currentDB string) (replacement, int, bool, error) {
	j := ref.end
	var fn string
	var args []string
	var next int
	var err error
	switch {
	case j+2 < len(sig) && isPunct(sig[j], "@") && isWord(sig[j+1], "incr") && isPunct(sig[j+2], "("):
		fn = incrFuncName
		args, next, err = incrArgs(sig, j+3)
	case j+1 < len(sig) && isWord(sig[j], "tablet") && isPunct(sig[j+1], "("):
		fn = tabletFuncName
		args, next, err = tabletArgs(sig, j+2)
	default:
		return replacement{}, 0, false, nil
	}
	if err != nil {
		return replacement{}, 0, false, err
	}
	db := ref.db
	if db == "" {
		db = currentDB
	}
	if db == "" {
		return replacement{}, 0, false, &storage.Error{Code: 1046, Message: "No database selected"}
	}
	alias, hasAlias := userAlias(sig, next)
	if !hasAlias {
		alias = ref.table
	}
	call := make([]string, 0, len(args)+3)
	for _, a := range append([]string{alias, db, ref.table}, args...) {
		call = append(call, quoteString(a))
	}
	repl := fn + "(" + strings.Join(call, ", ") + ")"
	if !hasAlias {
		repl += " AS " + quoteIdent(alias)
	}
	return replacement{call: repl, alias: alias, db: db, incr: fn == incrFuncName}, next, true, nil
}

// userAlias reports the alias written after a table reference, if any.
func userAlias(sig []token, i int) (string, bool) {
	if i >= len(sig) {
		return "", false
	}
	t := sig[i]
	if isWord(t, "as") && i+1 < len(sig) && isIdentTok(sig[i+1]) {
		return identValue(sig[i+1]), true
	}
	if t.kind == tkQIdent || (t.kind == tkWord && !aliasStoppers[strings.ToLower(t.raw)]) {
		return identValue(t), true
	}
	return "", false
}

// incrArgs parses `'k' = 'v', ...)` into a flat key/value list.
func incrArgs(sig []token, i int) ([]string, int, error) {
	var out []string
	for i < len(sig) {
		if isPunct(sig[i], ")") {
			return out, i + 1, nil
		}
		if len(out) > 0 {
			if !isPunct(sig[i], ",") {
				return nil, 0, incrSyntaxError(sig[i])
			}
			i++
		}
		if i+2 >= len(sig) || sig[i].kind != tkString || !isPunct(sig[i+1], "=") || sig[i+2].kind != tkString {
			if i < len(sig) {
				return nil, 0, incrSyntaxError(sig[i])
			}
			break
		}
		out = append(out, stringValue(sig[i]), stringValue(sig[i+2]))
		i += 3
	}
	return nil, 0, &storage.Error{Code: storage.CodeGeneric, Message: "Syntax error in incr clause: missing ')'"}
}

func incrSyntaxError(t token) error {
	return &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Syntax error in incr clause near '%s'", t.raw)}
}

// tabletArgs parses `1,2,3)` into tablet ids.
func tabletArgs(sig []token, i int) ([]string, int, error) {
	var out []string
	for i < len(sig) {
		t := sig[i]
		switch {
		case isPunct(t, ")"):
			return out, i + 1, nil
		case isPunct(t, ","):
		case t.kind == tkNumber:
			out = append(out, t.raw)
		default:
			return nil, 0, &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Syntax error in TABLET clause near '%s'", t.raw)}
		}
		i++
	}
	return nil, 0, &storage.Error{Code: storage.CodeGeneric, Message: "Syntax error in TABLET clause: missing ')'"}
}
