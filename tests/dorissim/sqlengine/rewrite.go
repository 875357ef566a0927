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
	return rewriteDorisRefsIn(query, currentDB, rewriteEnv{cols: cols})
}

// rewriteEnv is what the rewrite needs to know about the session and the
// FE: visible columns, the hidden commit-TSO column, time travel support.
type rewriteEnv struct {
	cols columnLister
	// hasCommitTSO reports whether a table has __DORIS_COMMIT_TSO_COL__;
	// nil means no table has it (an FE before time travel).
	hasCommitTSO func(db, table string) bool
	// showHidden is the session's show_hidden_columns.
	showHidden bool
	// ignoreTimeTravel makes FOR VERSION AS OF read the current data, as an
	// FE before apache/doris#64776 does on OLAP tables.
	ignoreTimeTravel bool
}

// rewriteDorisRefsIn is rewriteDorisRefs with the time-travel and
// hidden-column behaviour of env.
func rewriteDorisRefsIn(query, currentDB string, env rewriteEnv) (string, bool, error) {
	toks, err := storage.Lex(query)
	if err != nil {
		return "", false, err
	}
	sig := storage.Significant(toks)
	wantTSO := env.hasCommitTSO != nil && isSelect(sig) && (env.showHidden || namesCommitTSO(sig))
	var edits []textEdit
	for i := 0; i < len(sig); i++ {
		ref, ok := parseTableRef(sig, i)
		if !ok {
			continue
		}
		repl, next, ok, err := rewriteAt(sig, ref, currentDB, env, wantTSO)
		if err != nil {
			return "", false, err
		}
		if !ok {
			continue
		}
		edits = append(edits, textEdit{start: sig[ref.start].Start, end: sig[next-1].End, text: repl.call})
		if (repl.incr || (repl.commitTSO && !env.showHidden)) && env.cols != nil {
			edits = append(edits, starEdits(sig, ref.start, repl.alias, env.cols(repl.db, ref.table))...)
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
func starEdits(sig []storage.Token, refIdx int, alias string, columns []string) []textEdit {
	if len(columns) == 0 {
		return nil
	}
	sel := enclosingSelect(sig, refIdx)
	if sel < 0 {
		return nil
	}
	qualified := make([]string, len(columns))
	for i, c := range columns {
		qualified[i] = storage.QuoteIdent(alias) + "." + storage.QuoteIdent(c)
	}
	list := strings.Join(qualified, ", ")
	var out []textEdit
	depth := 0
	for k := sel + 1; k < refIdx; k++ {
		t := sig[k]
		switch {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		case depth == 0 && t.IsWord("from"):
			return out
		case depth == 0 && t.IsPunct("*") && startsItem(sig[k-1]) && endsItem(sig, k+1):
			out = append(out, textEdit{start: t.Start, end: t.End, text: list})
		case depth == 0 && t.IsPunct("*") && k >= 2 && sig[k-1].IsPunct(".") && isIdentTok(sig[k-2]) &&
			strings.EqualFold(sig[k-2].Ident(), alias) && endsItem(sig, k+1):
			out = append(out, textEdit{start: sig[k-2].Start, end: t.End, text: list})
		}
	}
	return out
}

// enclosingSelect finds the SELECT keyword of the query level that holds
// sig[i], walking back over balanced parentheses.
func enclosingSelect(sig []storage.Token, i int) int {
	depth := 0
	for k := i - 1; k >= 0; k-- {
		switch {
		case sig[k].IsPunct(")"):
			depth++
		case sig[k].IsPunct("("):
			if depth == 0 {
				return -1
			}
			depth--
		case depth == 0 && sig[k].IsWord("select"):
			return k
		}
	}
	return -1
}

func startsItem(prev storage.Token) bool {
	return prev.IsWord("select") || prev.IsWord("distinct") || prev.IsWord("all") || prev.IsPunct(",")
}

func endsItem(sig []storage.Token, k int) bool {
	return k < len(sig) && (sig[k].IsPunct(",") || sig[k].IsWord("from"))
}

func isIdentTok(t storage.Token) bool {
	return t.Kind == storage.TokWord || t.Kind == storage.TokQuotedIdent
}

func parseTableRef(sig []storage.Token, i int) (tableRef, bool) {
	if !isIdentTok(sig[i]) {
		return tableRef{}, false
	}
	if i > 0 && sig[i-1].IsPunct(".") {
		return tableRef{}, false // the table part of db.tbl, already seen at db
	}
	if i+2 < len(sig) && sig[i+1].IsPunct(".") && isIdentTok(sig[i+2]) {
		return tableRef{db: sig[i].Ident(), table: sig[i+2].Ident(), start: i, end: i + 3}, true
	}
	return tableRef{table: sig[i].Ident(), start: i, end: i + 1}, true
}

// replacement is a rewritten table reference.
type replacement struct {
	call      string // the table function call, with an alias
	alias, db string
	incr      bool
	commitTSO bool // the call adds __DORIS_COMMIT_TSO_COL__ to the table's columns
}

// rewriteAt rewrites the clause after ref if it is @incr(...), TABLET(...)
// or FOR VERSION AS OF, and a plain table reference of a SELECT when the
// commit-TSO column must be readable from it (wantTSO). It returns the
// replacement and the index after the consumed tokens.
func rewriteAt(sig []storage.Token, ref tableRef, currentDB string, env rewriteEnv, wantTSO bool) (replacement, int, bool, error) {
	j := ref.end
	if j < len(sig) && sig[j].IsWord("for") {
		repl, next, ok, err := rewriteTimeTravelAt(sig, ref, currentDB, env, wantTSO)
		if ok || err != nil {
			return repl, next, ok, err
		}
	}
	var fn string
	var args []string
	var next int
	var err error
	switch {
	case j+2 < len(sig) && sig[j].IsPunct("@") && sig[j+1].IsWord("incr") && sig[j+2].IsPunct("("):
		fn = incrFuncName
		args, next, err = incrArgs(sig, j+3)
	case j+1 < len(sig) && sig[j].IsWord("tablet") && sig[j+1].IsPunct("("):
		fn = tabletFuncName
		args, next, err = tabletArgs(sig, j+2)
	case wantTSO && inFromList(sig, ref.start):
		fn, next = tabletFuncName, j
		args = []string{allTabletsArg}
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
	withTSO := fn == tabletFuncName && wantTSO && env.hasCommitTSO(db, ref.table)
	if !withTSO && len(args) == 1 && args[0] == allTabletsArg {
		return replacement{}, 0, false, nil // a plain reference GMS reads as it is
	}
	if withTSO {
		args = append(args, commitTSOArg)
	}
	alias, hasAlias := userAlias(sig, next)
	if !hasAlias {
		alias = ref.table
	}
	call := make([]string, 0, len(args)+3)
	for _, a := range append([]string{alias, db, ref.table}, args...) {
		call = append(call, storage.QuoteString(a))
	}
	repl := fn + "(" + strings.Join(call, ", ") + ")"
	if !hasAlias {
		repl += " AS " + storage.QuoteIdent(alias)
	}
	return replacement{call: repl, alias: alias, db: db, incr: fn == incrFuncName, commitTSO: withTSO}, next, true, nil
}

// userAlias reports the alias written after a table reference, if any.
func userAlias(sig []storage.Token, i int) (string, bool) {
	if i >= len(sig) {
		return "", false
	}
	t := sig[i]
	if t.IsWord("as") && i+1 < len(sig) && isIdentTok(sig[i+1]) {
		return sig[i+1].Ident(), true
	}
	if t.Kind == storage.TokQuotedIdent || (t.Kind == storage.TokWord && !aliasStoppers[strings.ToLower(t.Raw)]) {
		return t.Ident(), true
	}
	return "", false
}

// incrArgs parses `'k' = 'v', ...)` into a flat key/value list.
func incrArgs(sig []storage.Token, i int) ([]string, int, error) {
	var out []string
	for i < len(sig) {
		if sig[i].IsPunct(")") {
			return out, i + 1, nil
		}
		if len(out) > 0 {
			if !sig[i].IsPunct(",") {
				return nil, 0, incrSyntaxError(sig[i])
			}
			i++
		}
		if i+2 >= len(sig) || sig[i].Kind != storage.TokString || !sig[i+1].IsPunct("=") || sig[i+2].Kind != storage.TokString {
			if i < len(sig) {
				return nil, 0, incrSyntaxError(sig[i])
			}
			break
		}
		out = append(out, sig[i].Str(), sig[i+2].Str())
		i += 3
	}
	return nil, 0, &storage.Error{Code: storage.CodeGeneric, Message: "Syntax error in incr clause: missing ')'"}
}

func incrSyntaxError(t storage.Token) error {
	return &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Syntax error in incr clause near '%s'", t.Raw)}
}

// tabletArgs parses `1,2,3)` into tablet ids.
func tabletArgs(sig []storage.Token, i int) ([]string, int, error) {
	var out []string
	for i < len(sig) {
		t := sig[i]
		switch {
		case t.IsPunct(")"):
			return out, i + 1, nil
		case t.IsPunct(","):
		case t.Kind == storage.TokNumber:
			out = append(out, t.Raw)
		default:
			return nil, 0, &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Syntax error in TABLET clause near '%s'", t.Raw)}
		}
		i++
	}
	return nil, 0, &storage.Error{Code: storage.CodeGeneric, Message: "Syntax error in TABLET clause: missing ')'"}
}
