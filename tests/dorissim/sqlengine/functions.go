package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dorisFunctions override GMS built-ins whose results differ from Doris.
func dorisFunctions() []sql.Function {
	return []sql.Function{
		sql.FunctionN{Name: "from_unixtime", Fn: newFromUnixtime},
	}
}

// fromUnixtime floors a fractional epoch to the second, as Doris does
// (`FROM_UNIXTIME(1760000000123 / 1000, ...)`); GMS would round it.
type fromUnixtime struct {
	*function.FromUnixtime
}

func newFromUnixtime(args ...sql.Expression) (sql.Expression, error) {
	inner, err := function.NewFromUnixtime(args...)
	if err != nil {
		return nil, err
	}
	return &fromUnixtime{FromUnixtime: inner.(*function.FromUnixtime)}, nil
}

func (f *fromUnixtime) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	children := f.Children()
	v, err := children[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	d, err := toDecimal(v)
	if err != nil {
		return nil, nil
	}
	args := make([]sql.Expression, len(children))
	copy(args, children)
	args[0] = expression.NewLiteral(d.Floor().IntPart(), types.Int64)
	inner, err := function.NewFromUnixtime(args...)
	if err != nil {
		return nil, err
	}
	return inner.Eval(ctx, row)
}

func (f *fromUnixtime) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newFromUnixtime(children...)
}
