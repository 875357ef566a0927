package sqlengine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// Names of the table functions that rewritten Doris syntax calls. The first
// three arguments are always (alias, database, table).
const (
	incrFuncName   = "__doris_incr"
	tabletFuncName = "__doris_tablet"
)

// tfBase holds what every Doris table function node shares.
type tfBase struct {
	db     sql.Database
	alias  string
	dbName string
	table  string
	schema sql.Schema
}

func (b *tfBase) Resolved() bool                { return true }
func (b *tfBase) IsReadOnly() bool              { return true }
func (b *tfBase) Schema() sql.Schema            { return b.schema }
func (b *tfBase) Children() []sql.Node          { return nil }
func (b *tfBase) Expressions() []sql.Expression { return nil }
func (b *tfBase) Database() sql.Database        { return b.db }
func (b *tfBase) Collation() sql.CollationID    { return sql.Collation_Default }
func (b *tfBase) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

// stringArgs evaluates literal table-function arguments as strings.
func stringArgs(ctx *sql.Context, fn string, args []sql.Expression, min int) ([]string, error) {
	if len(args) < min {
		return nil, fmt.Errorf("%s expects at least %d arguments, got %d", fn, min, len(args))
	}
	out := make([]string, len(args))
	for i, a := range args {
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("%s argument %d: %w", fn, i+1, err)
		}
		if v == nil {
			return nil, fmt.Errorf("%s argument %d is NULL", fn, i+1)
		}
		out[i] = toText(v)
	}
	return out, nil
}
