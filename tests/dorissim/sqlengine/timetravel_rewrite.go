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
// ref (FOR UPDATE, for instance). With env.ignoreTimeTravel the clause is
// parsed and dropped: an FE before apache/doris#64776 binds an OLAP table
// without looking at it (docs/time-travel.md §1.10), so the read is a
// plain scan of the current data. wantTSO adds the commit-TSO column.
func rewriteTimeTravelAt(sig []storage.Token, ref tableRef, currentDB string, env rewriteEnv, wantTSO bool) (replacement, int, bool, error) {
	j := ref.end
	if j+3 >= len(sig) || !sig[j].IsWord("for") || !sig[j+2].IsWord("as") || !sig[j+3].IsWord("of") {
		return replacement{}, 0, false, nil
	}
	switch {
	case sig[j+1].IsWord("time") && env.ignoreTimeTravel:
		// The grammar takes a string literal; the old FE ignores it.
		if j+4 >= len(sig) || sig[j+4].Kind != storage.TokString {
			return replacement{}, 0, false, timeTravelSyntaxError(sig, j+4)
		}
	case sig[j+1].IsWord("time"):
		// The datetime-to-TSO mapping of FOR TIME AS OF is unconfirmed in
		// Doris's source (docs/time-travel.md §1.3), so it is not modelled.
		return replacement{}, 0, false, &storage.Error{Code: storage.CodeGeneric,
			Message: "dorissim: FOR TIME AS OF is not modelled; use FOR VERSION AS OF <tso>"}
	case !sig[j+1].IsWord("version"):
		return replacement{}, 0, false, nil
	}
	if !sig[j+1].IsWord("time") && (j+4 >= len(sig) || sig[j+4].Kind != storage.TokNumber || strings.ContainsAny(sig[j+4].Raw, ".eE")) {
		return replacement{}, 0, false, timeTravelSyntaxError(sig, j+4)
	}
	fn, args := asofFuncName, []string{sig[j+4].Raw}
	next := j + 5
	var ids []string
	if next+1 < len(sig) && sig[next].IsWord("tablet") && sig[next+1].IsPunct("(") {
		var err error
		if ids, next, err = tabletArgs(sig, next+2); err != nil {
			return replacement{}, 0, false, err
		}
	}
	if env.ignoreTimeTravel {
		fn, args = tabletFuncName, nil
		if ids == nil {
			args = []string{allTabletsArg}
		}
	}
	args = append(args, ids...)
	db := ref.db
	if db == "" {
		db = currentDB
	}
	if db == "" {
		return replacement{}, 0, false, &storage.Error{Code: 1046, Message: "No database selected"}
	}
	withTSO := wantTSO && env.hasCommitTSO(db, ref.table)
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
	return replacement{call: repl, alias: alias, db: db, commitTSO: withTSO}, next, true, nil
}

func timeTravelSyntaxError(sig []storage.Token, i int) error {
	near := "end of statement"
	if i < len(sig) {
		near = sig[i].Raw
	}
	return &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Syntax error in FOR VERSION AS OF clause near '%s'", near)}
}

// rewriteTimeTravel applies rewriteTimeTravelAt alone to every table
// reference of query, for testing the clause on its own.
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
		repl, next, ok, err := rewriteTimeTravelAt(sig, ref, currentDB, rewriteEnv{}, false)
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
