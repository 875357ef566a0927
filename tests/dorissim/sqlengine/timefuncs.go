package sqlengine

import (
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// gapRule is how a local time in a spring-forward gap resolves for an
// argument: the FE folds constants with java.time, the BE uses cctz.
func gapRule(arg sql.Expression) storage.GapRule {
	if isConstant(arg) {
		return storage.GapShiftForward
	}
	return storage.GapTransition
}

// fromUnixtime renders an epoch in the session zone. A fractional epoch is
// floored to the second, as Doris does (`FROM_UNIXTIME(1760000000123 / 1000,
// ...)`); GMS would round it.
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
	sec := d.Floor().IntPart()
	if sec < 0 || sec > function.MaxUnixTimeSecs {
		return nil, nil
	}
	loc, err := sessionLocation(ctx)
	if err != nil {
		return nil, err
	}
	wall := storage.WallClock(time.Unix(sec, 0), loc)
	if len(children) == 1 {
		return wall, nil
	}
	return function.NewDateFormat(expression.NewLiteral(wall, types.DatetimeMaxPrecision), children[1]).Eval(ctx, row)
}

// Type is DATETIME without fractions for the one-argument form: the epoch
// is whole seconds.
func (f *fromUnixtime) Type() sql.Type {
	if len(f.Children()) == 1 {
		return types.Datetime
	}
	return f.FromUnixtime.Type()
}

func (f *fromUnixtime) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newFromUnixtime(children...)
}

// unixTimestamp reads a DATETIME or string as a wall clock in the session
// zone: a repeated local time is the earlier instant, a skipped one follows
// gapRule.
type unixTimestamp struct {
	*function.UnixTimestamp
}

func newUnixTimestamp(args ...sql.Expression) (sql.Expression, error) {
	inner, err := function.NewUnixTimestamp(args...)
	if err != nil {
		return nil, err
	}
	return &unixTimestamp{UnixTimestamp: inner.(*function.UnixTimestamp)}, nil
}

func (u *unixTimestamp) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	if u.Date == nil || u.Date.Type().Equals(types.Timestamp) {
		return u.UnixTimestamp.Eval(ctx, row) // an instant already
	}
	v, err := u.Date.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	conv, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
	if err != nil {
		return u.UnixTimestamp.Eval(ctx, row) // GMS's warning and 0
	}
	loc, err := sessionLocation(ctx)
	if err != nil {
		return nil, err
	}
	instant, _ := storage.LocalInstant(conv.(time.Time), loc, gapRule(u.Date))
	return epochValue(instant, u.Type()), nil
}

// epochValue is GMS's UNIX_TIMESTAMP result shape: 0 out of range, seconds
// as BIGINT, or a decimal of the argument's scale.
func epochValue(t time.Time, typ sql.Type) any {
	micro := t.UnixMicro()
	switch {
	case micro > function.MaxUnixTimeMicroSecs:
		return int64(0)
	case micro < 1e6:
		return typ.Zero()
	}
	if dt, ok := typ.(sql.DecimalType); ok {
		scale := int32(dt.Scale())
		for i := 6 - scale; i > 0; i-- {
			micro /= 10
		}
		return decimal.New(micro, -scale)
	}
	return micro / 1e6
}

func (u *unixTimestamp) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newUnixTimestamp(children...)
}

// convertTz moves a wall clock from one zone to another through the instant
// it stands for; an unknown zone or a bad value gives NULL.
type convertTz struct {
	*function.ConvertTz
}

func newConvertTz(dt, from, to sql.Expression) sql.Expression {
	return &convertTz{ConvertTz: function.NewConvertTz(dt, from, to).(*function.ConvertTz)}
}

func (c *convertTz) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	ch := c.Children()
	vals := make([]any, len(ch))
	for i, e := range ch {
		v, err := e.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		vals[i] = v
	}
	dt, err := types.DatetimeMaxPrecision.ConvertWithoutRangeCheck(ctx, vals[0])
	if err != nil {
		return nil, nil
	}
	from, okFrom := vals[1].(string)
	to, okTo := vals[2].(string)
	if !okFrom || !okTo {
		return nil, nil
	}
	fromLoc, err1 := loadZone(from)
	toLoc, err2 := loadZone(to)
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	instant, _ := storage.LocalInstant(dt, fromLoc, gapRule(ch[0]))
	return storage.WallClock(instant, toLoc), nil
}

// Type keeps the scale of a DATETIME argument, as Doris does; a string
// argument gives whole seconds.
func (c *convertTz) Type() sql.Type {
	if dt, ok := c.Children()[0].Type().(sql.DatetimeType); ok && types.IsDatetimeType(dt) {
		return types.MustCreateDatetimeType(sqltypes.Datetime, dt.Precision())
	}
	return types.Datetime
}

func (c *convertTz) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 3 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 3)
	}
	return newConvertTz(children[0], children[1], children[2]), nil
}

// now is NOW() and its synonyms: the statement time (never ahead of the
// TSO) as the session zone's wall clock. SYSDATE() is the statement time
// too: the simulator clock is not the host's.
type now struct {
	*function.Now
	name string
}

func nowNamed(name string) func(args ...sql.Expression) (sql.Expression, error) {
	return func(args ...sql.Expression) (sql.Expression, error) {
		inner, err := function.NewNow(args...)
		if err != nil {
			return nil, err
		}
		return &now{Now: inner.(*function.Now), name: name}, nil
	}
}

func (n *now) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	fsp, err := n.precision(ctx, row)
	if err != nil {
		return nil, err
	}
	loc, err := sessionLocation(ctx)
	if err != nil {
		return nil, err
	}
	unit := time.Second
	for range fsp {
		unit /= 10
	}
	return storage.WallClock(ctx.QueryTime(), loc).Truncate(unit), nil
}

// precision is the fractional-second digits asked for, 0 without an
// argument (the parser passes 0 for CURRENT_TIMESTAMP()).
func (n *now) precision(ctx *sql.Context, row sql.Row) (int, error) {
	ch := n.Children()
	if len(ch) == 0 {
		return 0, nil
	}
	p, err := ch[0].Eval(ctx, row)
	if err != nil {
		return 0, err
	}
	v, ok := types.CoalesceInt(p)
	if !ok || v < 0 || v > 6 {
		return 0, sql.ErrInvalidArgumentType.New(n.name)
	}
	return v, nil
}

// Type is DATETIME(p) for NOW(p), like Doris's DATETIMEV2(p).
func (n *now) Type() sql.Type {
	if ch := n.Children(); len(ch) == 1 && isConstant(ch[0]) {
		if p, err := n.precision(sql.NewEmptyContext(), nil); err == nil {
			return types.MustCreateDatetimeType(sqltypes.Datetime, p)
		}
	}
	return n.Now.Type()
}

func (n *now) FunctionName() string { return n.name }

func (n *now) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return nowNamed(n.name)(children...)
}

// curDate is CURDATE() in the session zone.
type curDate struct {
	function.CurrDate
	name string
}

func curDateNamed(name string) func() sql.Expression {
	return func() sql.Expression {
		return &curDate{CurrDate: function.NewCurrDate().(function.CurrDate), name: name}
	}
}

func (c *curDate) Eval(ctx *sql.Context, _ sql.Row) (interface{}, error) {
	loc, err := sessionLocation(ctx)
	if err != nil {
		return nil, err
	}
	t := storage.WallClock(ctx.QueryTime(), loc)
	return fmt.Sprintf("%d-%02d-%02d", t.Year(), t.Month(), t.Day()), nil
}

func (c *curDate) FunctionName() string { return c.name }

func (c *curDate) String() string { return c.name + "()" }

func (c *curDate) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 0)
	}
	return c, nil
}
