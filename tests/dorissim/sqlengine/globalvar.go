package sqlengine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// globalVarFuncName reads one of the engine's own global variables. GMS keeps
// global variables per process, so `@@global.time_zone` is rewritten into a
// call of it to read the global of this simulator's FE.
const globalVarFuncName = "dorissim_global_var"

// rewriteGlobalVars turns `@@global.time_zone` into a globalVarFuncName call
// aliased back to its name, so the column keeps the name Doris gives it.
func rewriteGlobalVars(query string) (string, error) {
	if !strings.Contains(strings.ToLower(query), "@@global.") {
		return query, nil
	}
	toks, err := storage.Lex(query)
	if err != nil {
		return "", err
	}
	sig := storage.Significant(toks)
	var edits []textEdit
	for i := 0; i+4 < len(sig); i++ {
		if !sig[i].IsPunct("@") || !sig[i+1].IsPunct("@") || !sig[i+2].IsWord("global") ||
			!sig[i+3].IsPunct(".") || !isTimeZone(sig[i+4].Ident()) || sig[i+4].Kind != storage.TokWord {
			continue
		}
		call := globalVarFuncName + "('time_zone')"
		if !noAliasWanted(sig, i+5) {
			call += " AS " + storage.QuoteIdent(query[sig[i].Start:sig[i+4].End])
		}
		edits = append(edits, textEdit{start: sig[i].Start, end: sig[i+4].End, text: call})
		i += 4
	}
	if len(edits) == 0 {
		return query, nil
	}
	return applyEdits(query, edits), nil
}

// noAliasWanted reports whether the select item ending before sig[i] is aliased
// or is not a select item at all (a WHERE operand, say), where an alias
// would be a syntax error.
func noAliasWanted(sig []storage.Token, i int) bool {
	if i >= len(sig) {
		return false
	}
	t := sig[i]
	return !(t.IsPunct(",") || t.IsWord("from") || t.IsWord("limit") || t.IsWord("union") || t.IsPunct(";"))
}

// globalVar evaluates to the engine's global value of a variable.
type globalVar struct {
	name sql.Expression
}

var _ sql.FunctionExpression = (*globalVar)(nil)

func newGlobalVar(e sql.Expression) sql.Expression { return &globalVar{name: e} }

func (g *globalVar) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	v, err := g.name.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	name, _ := v.(string)
	gs, ok := ctx.Session.(*gmsSession)
	if !ok || !isTimeZone(name) || gs.zone == nil {
		return nil, fmt.Errorf("%s: unknown global variable %v", globalVarFuncName, v)
	}
	return gs.zone.get(), nil
}

func (g *globalVar) FunctionName() string       { return globalVarFuncName }
func (g *globalVar) Description() string        { return "the simulator FE's global value of a variable" }
func (g *globalVar) Resolved() bool             { return g.name.Resolved() }
func (g *globalVar) String() string             { return "@@global.time_zone" }
func (g *globalVar) Type() sql.Type             { return types.LongText }
func (g *globalVar) IsNullable() bool           { return false }
func (g *globalVar) Children() []sql.Expression { return []sql.Expression{g.name} }
func (g *globalVar) IsNonDeterministic() bool   { return true }
func (g *globalVar) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_Default, 3
}

func (g *globalVar) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(g, len(children), 1)
	}
	return newGlobalVar(children[0]), nil
}
