package doris

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
)

// ScanTimestampField is the user-facing config field whose times are read
// in the FE's time zone; errors about such a time name it.
const ScanTimestampField = "scan_timestamp"

// LocalTime is a wall-clock time as the FE reads it in its time_zone.
type LocalTime struct {
	Text    string // yyyy-MM-dd HH:mm:ss as given
	Zone    string // the FE session's @@time_zone
	EpochMs int64  // the instant Doris takes it for, a multiple of 1000
	// Exists is false for a time inside a daylight-saving gap (the clocks
	// jumped over it); EpochMs is then the instant Doris would use anyway.
	// A time in a repeated hour exists and means its first occurrence.
	Exists bool
}

// LocalTimeSQL asks the FE for the instant of a wall-clock time and, in the
// same statement and so the same session zone, for the wall clock of that
// instant. The two agree unless the time does not exist: inside a gap Doris
// moves it (by the gap's length when the FE folds the constants, to the
// transition when the BE evaluates them), so the wall clock comes back
// different.
func LocalTimeSQL(ts string) string {
	lit := QuoteLiteral(ts)
	return fmt.Sprintf("SELECT UNIX_TIMESTAMP(%s), FROM_UNIXTIME(UNIX_TIMESTAMP(%s), '%%Y-%%m-%%d %%H:%%i:%%s'), @@time_zone",
		lit, lit)
}

// wholeSeconds is UNIX_TIMESTAMP's result for a time without fractions: an
// integer, or a DECIMAL with a zero fraction (newer FEs fold to DECIMALV3).
var wholeSeconds = regexp.MustCompile(`^(\d+)(?:\.0*)?$`)

// ResolveLocalTime asks the FE (statement API, global time_zone) which
// instant the wall-clock time ts stands for. ts must be a strict
// yyyy-MM-dd HH:mm:ss; it is validated before it reaches SQL.
func ResolveLocalTime(ctx context.Context, c *Client, ts string) (LocalTime, error) {
	if err := ValidateTimestamp(ts); err != nil {
		return LocalTime{}, err
	}
	res, err := Statement(ctx, c, LocalTimeSQL(ts))
	if err != nil {
		return LocalTime{}, fmt.Errorf("resolve %q in the Doris FE time zone: %w", ts, err)
	}
	return ParseLocalTimeResult(ts, res)
}

// ParseLocalTimeResult reads the row of LocalTimeSQL(ts).
func ParseLocalTimeResult(ts string, res *StatementResult) (LocalTime, error) {
	if len(res.Rows) != 1 || len(res.Rows[0]) != 3 {
		return LocalTime{}, fmt.Errorf("resolve %q in the Doris FE time zone: want one row of 3 columns, got %v", ts, res.Rows)
	}
	epochText, ok1 := res.CellText(0, 0)
	wall, ok2 := res.CellText(0, 1)
	zone, ok3 := res.CellText(0, 2)
	m := wholeSeconds.FindStringSubmatch(epochText)
	if !ok1 || !ok2 || !ok3 || m == nil {
		return LocalTime{}, fmt.Errorf("resolve %q in the Doris FE time zone: unexpected result %v", ts, res.Rows[0])
	}
	sec, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || sec > 253402300799 {
		return LocalTime{}, fmt.Errorf("resolve %q in the Doris FE time zone: epoch %q out of range", ts, epochText)
	}
	if sec == 0 {
		// UNIX_TIMESTAMP answers 0 for times it cannot represent.
		return LocalTime{}, fmt.Errorf("%q in the Doris FE time zone %s is outside the range of UNIX_TIMESTAMP "+
			"(1970-01-01 onwards)", ts, zone)
	}
	if ValidateTimestamp(wall) != nil {
		return LocalTime{}, fmt.Errorf("resolve %q in the Doris FE time zone: FROM_UNIXTIME returned %q", ts, wall)
	}
	return LocalTime{Text: ts, Zone: zone, EpochMs: sec * 1000, Exists: wall == ts}, nil
}

// ResolveScanTimestamp resolves the configured scan_timestamp, a wall-clock
// time in the FE's time zone, once at start. A time in a repeated hour means
// its first occurrence (changes are re-read rather than skipped); a time
// that does not exist is a *SkippedTimeError, a config error.
func ResolveScanTimestamp(ctx context.Context, c *Client, ts string) (LocalTime, error) {
	if err := ValidateTimestamp(ts); err != nil {
		return LocalTime{}, fmt.Errorf("%s: %w", ScanTimestampField, err)
	}
	lt, err := ResolveLocalTime(ctx, c, ts)
	switch {
	case err != nil:
		return LocalTime{}, fmt.Errorf("%s: %w", ScanTimestampField, err)
	case !lt.Exists:
		return LocalTime{}, &SkippedTimeError{Field: ScanTimestampField, Time: ts, Zone: lt.Zone}
	}
	return lt, nil
}

// SkippedTimeError is a configured wall-clock time that the FE's zone skips
// (a daylight-saving gap): no instant is the one the user meant.
type SkippedTimeError struct{ Field, Time, Zone string }

func (e *SkippedTimeError) Error() string {
	return fmt.Sprintf("%s %q does not exist in the Doris FE time zone %s: the clocks skip it for daylight "+
		"saving time; give a time before or after the gap", e.Field, e.Time, e.Zone)
}
