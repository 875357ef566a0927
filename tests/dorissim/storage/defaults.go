package storage

import (
	"strconv"
	"strings"
	"time"
)

// Column defaults, as Doris evaluates them.
//
// A DEFAULT is either a literal or one of the time functions Doris allows:
// CURRENT_TIMESTAMP[(p)] on DATETIME and CURRENT_DATE on DATE. Writes that
// omit a column (INSERT with a column list, stream loads with `columns`,
// partial-column loads creating a key) take the default evaluated at write
// time. A light ADD COLUMN does not rewrite data in Doris: old segments lack
// the column and the BE fills it from the column's default when reading
// (segment_v2 DefaultValueColumnIterator), and the FE sends the BE the
// column's `realDefaultValue`, which for CURRENT_TIMESTAMP is the time the
// column was defined (catalog/Column.java toThrift). So old rows, and the
// binlog records read back through the new schema, all show one constant
// value: the ALTER's time, not the read's.

const (
	defaultCurrentTimestamp = "CURRENT_TIMESTAMP"
	defaultCurrentDate      = "CURRENT_DATE"
)

// DefaultFunction reports whether the column's DEFAULT is a time function
// evaluated per write: name is CURRENT_TIMESTAMP or CURRENT_DATE and
// precision the fractional digits asked for (0 when none).
func DefaultFunction(c Column) (name string, precision int, ok bool) {
	if c.Default == nil {
		return "", 0, false
	}
	name, arg, _ := splitDefaultCall(*c.Default)
	switch name {
	case defaultCurrentTimestamp:
		p, err := timestampDefaultPrecision(arg)
		if err != nil {
			return "", 0, false
		}
		return name, p, true
	case defaultCurrentDate:
		return name, 0, true
	}
	return "", 0, false
}

// DefaultAt is the normalized default of c (nil when it has none) for a
// write at wall, the writer's wall clock (a time.Time in UTC holding the
// local date and time, like a DATETIME value).
func DefaultAt(c Column, wall time.Time) (any, error) {
	if c.Default == nil {
		return nil, nil
	}
	if err := checkDefault(c); err != nil {
		return nil, err
	}
	name, p, ok := DefaultFunction(c)
	if !ok {
		return ParseValue(c.Type, *c.Default)
	}
	if name == defaultCurrentDate {
		return time.Date(wall.Year(), wall.Month(), wall.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	digits := min(p, c.Type.Scale)
	return truncateDateTime(wall, digits), nil
}

// checkDefault validates a DEFAULT against the column type with Doris's
// texts (ColumnDef.validateDefaultValue).
func checkDefault(c Column) error {
	if c.Default == nil {
		return nil
	}
	name, arg, _ := splitDefaultCall(*c.Default)
	switch name {
	case defaultCurrentTimestamp:
		if c.Type.Kind != DateTime {
			return errorf("Types other than DATETIME and DATETIMEV2 cannot use current_timestamp as the default value")
		}
		_, err := timestampDefaultPrecision(arg)
		return err
	case defaultCurrentDate:
		if c.Type.Kind != Date {
			return errorf("Types other than DATE and DATEV2 cannot use current_date as the default value")
		}
		return nil
	}
	_, err := ParseValue(c.Type, *c.Default)
	return err
}

// splitDefaultCall splits `NAME(arg)` (case-insensitive name, upper-cased).
func splitDefaultCall(d string) (name, arg string, isCall bool) {
	d = strings.TrimSpace(d)
	open := strings.IndexByte(d, '(')
	if open < 0 || !strings.HasSuffix(d, ")") {
		return strings.ToUpper(d), "", false
	}
	return strings.ToUpper(strings.TrimSpace(d[:open])), strings.TrimSpace(d[open+1 : len(d)-1]), true
}

func timestampDefaultPrecision(arg string) (int, error) {
	if arg == "" {
		return 0, nil
	}
	p, err := strconv.Atoi(arg)
	if err != nil || p < 0 || p > 6 {
		return 0, errorf("column's default value current_timestamp precision must be between 0 and 6")
	}
	return p, nil
}

// loadDefaults evaluates every column's default once for a load: a load is
// one statement, so its CURRENT_TIMESTAMP is one value. Normalized values
// are immutable, so rows may share them.
func loadDefaults(cols []Column, wall time.Time) ([]any, error) {
	out := make([]any, len(cols))
	for i, c := range cols {
		d, err := DefaultAt(c, wall)
		if err != nil {
			return nil, errorf("default of column %s: %v", c.Name, err)
		}
		out[i] = d
	}
	return out, nil
}

// WallClock is the store's current time (the physical part of the current
// TSO, so never ahead of it) as a wall clock in loc.
func (s *Store) WallClock(loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	t := time.UnixMilli(s.CurrentTSO().PhysicalMs).In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}
