package sqlengine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// The hidden column __DORIS_COMMIT_TSO_COL__ of row-binlog tables
// (docs/time-travel.md §1.6). As in Doris's Nereids binder, whose OLAP scan
// outputs every column of the base schema, hidden ones included
// (LogicalOlapScan.computeOutput, getBaseSchema(true)), the column can be
// named in any SELECT; `*` includes it only under show_hidden_columns
// (BindExpression.visitUnboundStar keeps invisible slots only when
// Util.showHiddenColumns()). GMS tables have a fixed schema, so a SELECT
// that needs the column reads the table through the tablet table function
// with the column appended.

// Markers among the table-function arguments (never a tablet id).
const (
	// commitTSOArg appends the commit-TSO column to the function's columns.
	commitTSOArg = "+commit_tso"
	// allTabletsArg reads every tablet, as a plain table reference does.
	allTabletsArg = "+all_tablets"
)

// commitTSOColumn is the hidden column as a result column: a BIGINT that
// is never NULL (ColumnDefinition gives it the physical default 0).
var commitTSOColumn = storage.Column{Name: storage.ColCommitTSO, Type: storage.Type{Kind: storage.BigInt}}

// takeMarkers removes the marker arguments from vals.
func takeMarkers(vals []string) (rest []string, commitTSO, all bool) {
	for _, v := range vals {
		switch v {
		case commitTSOArg:
			commitTSO = true
		case allTabletsArg:
			all = true
		default:
			rest = append(rest, v)
		}
	}
	return rest, commitTSO, all
}

// withCommitTSO is cols with the commit-TSO column appended.
func withCommitTSO(cols []storage.Column) []storage.Column {
	return append(append(make([]storage.Column, 0, len(cols)+1), cols...), commitTSOColumn)
}

// isSelect reports whether a statement is a query, the only statements
// whose table references may be rewritten to table functions.
func isSelect(sig []storage.Token) bool {
	for _, t := range sig {
		if t.IsPunct("(") {
			continue
		}
		return t.IsWord("select") || t.IsWord("with")
	}
	return false
}

// namesCommitTSO reports whether the statement names the hidden column.
func namesCommitTSO(sig []storage.Token) bool {
	for _, t := range sig {
		if isIdentTok(t) && strings.EqualFold(t.Ident(), storage.ColCommitTSO) {
			return true
		}
	}
	return false
}

// inFromList reports whether the table reference at i follows FROM or
// JOIN, or a comma of a FROM list.
func inFromList(sig []storage.Token, i int) bool {
	if i == 0 {
		return false
	}
	p := sig[i-1]
	if p.IsWord("from") || p.IsWord("join") || p.IsWord("straight_join") {
		return true
	}
	if !p.IsPunct(",") {
		return false
	}
	// A comma of the FROM list: the nearest FROM at this depth comes after
	// the nearest SELECT.
	depth := 0
	for k := i - 2; k >= 0; k-- {
		switch {
		case sig[k].IsPunct(")"):
			depth++
		case sig[k].IsPunct("("):
			if depth == 0 {
				return false
			}
			depth--
		case depth == 0 && sig[k].IsWord("from"):
			return true
		case depth == 0 && (sig[k].IsWord("select") || sig[k].IsWord("where")):
			return false
		}
	}
	return false
}

// showHiddenColumns reads the session's show_hidden_columns.
func (s *gmsSession) showHiddenColumns() bool {
	switch strings.ToLower(strings.TrimSpace(s.dorisVars["show_hidden_columns"])) {
	case "true", "1", "on":
		return true
	}
	return false
}

// SetPreTimeTravelFE switches the FE between Doris 5.0's time travel and
// an FE from before it (Config.PreTimeTravelFE), for the statements that
// start after the call.
func (e *Engine) SetPreTimeTravelFE(on bool) { e.preTimeTravel.Store(on) }

// PreTimeTravelFE reports whether the FE ignores FOR VERSION AS OF.
func (e *Engine) PreTimeTravelFE() bool { return e.preTimeTravel.Load() }

// hasCommitTSO reports whether a table carries the hidden commit-TSO
// column: every row-binlog table, on an FE that has time travel.
func (e *Engine) hasCommitTSO(db, table string) bool {
	info, err := e.store.Table(db, table)
	return err == nil && info.BinlogEnabled
}

// rewriteEnv is what the Doris-syntax rewrite needs from the session.
func (s *Session) rewriteEnv() rewriteEnv {
	env := rewriteEnv{cols: s.eng.visibleColumns, showHidden: s.gs.showHiddenColumns()}
	if s.eng.PreTimeTravelFE() {
		env.ignoreTimeTravel = true
	} else {
		env.hasCommitTSO = s.eng.hasCommitTSO
	}
	return env
}

// hiddenColumnError gives GMS's "column not found" for the commit-TSO
// column Doris's text: Nereids' BindExpression.couldNotFoundColumn names the
// column, "table list" for an unqualified name, and the clause it was
// bound in. The simulator tells the select list (PROJECT) from the rest
// (FILTER), which is where a client names it.
func hiddenColumnError(query string, err error) error {
	if !sql.ErrColumnNotFound.Is(err) || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(storage.ColCommitTSO)) {
		return err
	}
	clause := "FILTER"
	lower := strings.ToLower(query)
	if at, from := strings.Index(lower, strings.ToLower(storage.ColCommitTSO)), strings.Index(lower, " from "); at >= 0 && (from < 0 || at < from) {
		clause = "PROJECT"
	}
	return &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("Unknown column '%s' in 'table list' in %s clause", storage.ColCommitTSO, clause)}
}
