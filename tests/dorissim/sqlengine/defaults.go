package sqlengine

import (
	"regexp"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Column defaults on the SQL path. An INSERT that omits a column gets the
// column's default from GMS (the schema carries it as a resolved default
// expression); CURRENT_TIMESTAMP becomes NOW(p), which follows the simulator
// clock in the session time_zone as Doris's now() does.

// gmsDefault is the GMS default expression of a column, or nil when it has
// none (GMS then inserts NULL, or fails for NOT NULL columns).
func gmsDefault(col storage.Column) *sql.ColumnDefaultValue {
	if col.Default == nil {
		return nil
	}
	typ := gmsType(col.Type)
	if _, p, ok := storage.DefaultFunction(col); ok {
		// CURRENT_DATE too is NOW() cut to the DATE column type: GMS's own
		// CURRENT_DATE ignores the session time_zone.
		expr, err := function.NewNow(expression.NewLiteral(int8(p), types.Int8))
		if err != nil {
			return nil
		}
		return &sql.ColumnDefaultValue{Expr: expr, OutType: typ, ReturnNil: col.Nullable}
	}
	// A literal default does not depend on the clock; it was validated when
	// the column was defined.
	v, err := storage.DefaultAt(col, time.Time{})
	if err != nil {
		return nil
	}
	return &sql.ColumnDefaultValue{
		Expr:      expression.NewLiteral(toGMS(col.Type, v), typ),
		OutType:   typ,
		Literal:   true,
		ReturnNil: true,
	}
}

// parseDefaultClause reads the value after DEFAULT in a column definition: a
// literal, NULL (returned as nil) or a function such as CURRENT_TIMESTAMP(3).
func parseDefaultClause(c *cursor) (*string, error) {
	t := c.peek(0)
	switch {
	case t.Kind == storage.TokString:
		c.i++
		v := t.Str()
		return &v, nil
	case t.Kind == storage.TokNumber:
		c.i++
		v := t.Raw
		return &v, nil
	case t.IsPunct("-") && c.peek(1).Kind == storage.TokNumber:
		v := "-" + c.peek(1).Raw
		c.i += 2
		return &v, nil
	case t.IsWord("null"):
		c.i++
		return nil, nil
	case t.Kind == storage.TokWord:
		c.i++
		v := strings.ToUpper(t.Raw)
		if c.acceptPunct("(") {
			arg := ""
			if c.peek(0).Kind == storage.TokNumber {
				arg = c.peek(0).Raw
				c.i++
			}
			if !c.acceptPunct(")") {
				return nil, errSyntax("Syntax error in DEFAULT near %s", c.near())
			}
			v += "(" + arg + ")"
		}
		return &v, nil
	}
	return nil, errSyntax("Syntax error in DEFAULT near %s", c.near())
}

// addColumn runs ALTER TABLE ... ADD COLUMN. A time-function default is
// evaluated once, now, in the session time_zone: Doris stores that value as
// the column's real default and every existing row reads it.
func addColumn(s *Session, gctx *sql.Context, db, table string, c *cursor) (*Result, error) {
	col, err := parseColumnDef(c)
	if err != nil {
		return nil, err
	}
	loc, err := sessionLocation(gctx)
	if err != nil {
		return nil, err
	}
	return okOrErr(s.eng.store.AddColumnAt(db, table, col, s.eng.store.WallClock(loc)))
}

var missingDefaultRE = regexp.MustCompile(`^Field '(.*)' doesn't have a default value$`)

// dorisMissingDefault rewrites GMS's error for an INSERT that omits a NOT
// NULL column without default into Doris's text (BindSink).
func dorisMissingDefault(se *storage.Error) *storage.Error {
	m := missingDefaultRE.FindStringSubmatch(se.Message)
	if m == nil {
		return se
	}
	return &storage.Error{Code: storage.CodeGeneric, Message: "Column has no default value, column=" + m[1]}
}
