package sqlengine

import (
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// rewriteTimeTravelAt rewrites `<table> FOR VERSION AS OF <tso>
// [TABLET(<ids>)] [alias]` into a call of asofFuncName. Doris's grammar
// (DorisParser.g4, relationPrimary) puts the snapshot clause before
// TABLET(...), so `TABLET(1) FOR VERSION AS OF 5` is not taken here and
// fails to parse, as in Doris. ok is false when no snapshot clause follows
// ref (FOR UPDATE, for instance).
//
// Wiring (not done here, see docs/time-travel.md): rewriteAt must try this
// first for a table reference followed by FOR, and newProvider must
// register &asofFunc{store: store}.
func rewriteTimeTravelAt(sig []storage.Token, ref tableRef, currentDB string) (replacement, int, bool, error) {
	j := ref.end
	if j+3 >= len(sig) || !sig[j].IsWord("for") || !sig[j+2].IsWord("as") || !sig[j+3].IsWord("of") {
		return replacement{}, 0, false, nil
	}
	switch {
	case sig[j+1].IsWord("time"):
		// The datetime-to-TSO mapping of FOR TIME AS OF is unconfirmed in
		// Doris's source (docs/time-travel.md §1.3), so it is not modelled.
		return replacement{}, 0, false, &storage.Error{Code: storage.CodeGeneric,
			Message: "dorissim: FOR TIME AS OF is not modelled; use FOR VERSION AS OF <tso>"}
	case !sig[j+1].IsWord("version"):
		return replacement{}, 0, false, nil
	}
	if j+4 >= len(sig) || sig[j+4].Kind != storage.TokNumber || strings.ContainsAny(sig[j+4].Raw, ".eE") {
		near := "end of statement"
		if j+4 < len(sig) {
			near = sig[j+4].Raw
		}
		return replacement{}, 0, false, &storage.Error{Code: storage.CodeGeneric,
			Message: fmt.Sprintf("Syntax error in FOR VERSION AS OF clause near '%s'", near)}
	}
	args := []string{sig[j+4].Raw}
	next := j + 5
	if next+1 < len(sig) && sig[next].IsWord("tablet") && sig[next+1].IsPunct("(") {
		ids, after, err := tabletArgs(sig, next+2)
		if err != nil {
			return replacement{}, 0, false, err
		}
		args = append(args, ids...)
		next = after
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
		call = append(call, storage.QuoteString(a))
	}
	repl := asofFuncName + "(" + strings.Join(call, ", ") + ")"
	if !hasAlias {
		repl += " AS " + storage.QuoteIdent(alias)
	}
	return replacement{call: repl, alias: alias, db: db}, next, true, nil
}

// rewriteTimeTravel applies rewriteTimeTravelAt to every table reference
// of query, leaving the rest to rewriteDorisRefs. It is what rewriteAt's
// hook will do, kept apart so that it can be tested before the wiring.
func rewriteTimeTravel(query, currentDB string) (string, bool, error) {
	toks, err := storage.Lex(query)
	if err != nil {
		return "", false, err
	}
	sig := storage.Significant(toks)
	var edits []textEdit
	for i := 0; i < len(sig); i++ {
		ref, ok := parseTableRef(sig, i)
		if !ok {
			continue
		}
		repl, next, ok, err := rewriteTimeTravelAt(sig, ref, currentDB)
		if err != nil {
			return "", false, err
		}
		if !ok {
			continue
		}
		edits = append(edits, textEdit{start: sig[ref.start].Start, end: sig[next-1].End, text: repl.call})
		i = next - 1
	}
	if len(edits) == 0 {
		return query, false, nil
	}
	return applyEdits(query, edits), true, nil
}
