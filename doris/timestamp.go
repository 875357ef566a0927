package doris

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// TimestampLayout is Doris's `yyyy-MM-dd HH:mm:ss` in Go notation.
const TimestampLayout = "2006-01-02 15:04:05"

// Timestamp is a Doris wall-clock second and the TSO physical time it was
// derived from, floored to the second.
type Timestamp struct {
	Text       string // yyyy-MM-dd HH:mm:ss: the FE session's zone from CurrentTimestamp, UTC for window bounds
	PhysicalMs int64  // epoch ms, a multiple of 1000
}

// ParseTimestamp parses a strict `yyyy-MM-dd HH:mm:ss` (exactly 19 bytes,
// digits in place, a real calendar date and time) as a zone-less wall clock
// in UTC. Every timestamp put into SQL goes through it.
func ParseTimestamp(s string) (time.Time, error) {
	if !timestampShape(s) {
		return time.Time{}, fmt.Errorf("timestamp must match yyyy-MM-dd HH:mm:ss: %q", s)
	}
	t, err := time.Parse(TimestampLayout, s)
	if err != nil || t.Format(TimestampLayout) != s {
		return time.Time{}, fmt.Errorf("timestamp is not a valid date and time: %q", s)
	}
	return t, nil
}

// ValidateTimestamp reports whether s is a strict `yyyy-MM-dd HH:mm:ss`.
func ValidateTimestamp(s string) error {
	_, err := ParseTimestamp(s)
	return err
}

func timestampShape(s string) bool {
	if len(s) != len(TimestampLayout) {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 4, 7:
			if s[i] != '-' {
				return false
			}
		case 10:
			if s[i] != ' ' {
				return false
			}
		case 13, 16:
			if s[i] != ':' {
				return false
			}
		default:
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
	}
	return true
}

// CurrentTimestamp resolves the FE's current wall-clock second: /api/tso, then
// FROM_UNIXTIME of its physical time, both on the same FE per attempt, as the
// reference connector does. Any failure moves on to the next FE; only
// authentication failures and ctx end the loop early.
func (c *Client) CurrentTimestamp(ctx context.Context) (Timestamp, error) {
	var last error
	start := c.fes.Start()
	for i := range c.retries {
		if i > 0 {
			if err := c.sleep(ctx, i); err != nil {
				return Timestamp{}, fmt.Errorf("Failed to resolve current Doris timestamp: %w (last error: %w)", err, last)
			}
		}
		fe := c.fes.At(start, i)
		ts, err := c.timestampOn(ctx, fe)
		if err == nil {
			c.markGood(fe)
			return ts, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Timestamp{}, fmt.Errorf("Failed to resolve current Doris timestamp: %w (last error: %w)", ctxErr, err)
		}
		if IsAuthError(err) {
			return Timestamp{}, fmt.Errorf("Failed to resolve current Doris timestamp: %w", err)
		}
		last = err
		// The caller reports the incident once; each attempt is detail.
		c.log.Debugf("Doris current timestamp attempt %d/%d failed: %v", i+1, c.retries, err)
	}
	return Timestamp{}, fmt.Errorf("Failed to resolve current Doris timestamp after %d attempts: %w", c.retries, last)
}

func (c *Client) timestampOn(ctx context.Context, fe string) (Timestamp, error) {
	info, err := c.tsoOn(ctx, fe)
	if err != nil {
		return Timestamp{}, err
	}
	res, err := c.statementOn(ctx, fe, FromUnixtimeSQL(info.PhysicalMs))
	if err != nil {
		return Timestamp{}, err
	}
	text, err := ScalarTimestamp(res)
	if err != nil {
		return Timestamp{}, fmt.Errorf("doris FE %s: %w", fe, err)
	}
	return Timestamp{Text: text, PhysicalMs: info.PhysicalMs - info.PhysicalMs%1000}, nil
}

// FromUnixtimeSQL is the statement that renders a TSO physical time as the
// FE's wall-clock second.
func FromUnixtimeSQL(physMs int64) string {
	return fmt.Sprintf("SELECT FROM_UNIXTIME(%d / 1000, '%%Y-%%m-%%d %%H:%%i:%%s')", physMs)
}

// ScalarTimestamp extracts the single timestamp cell of a FROM_UNIXTIME
// result with the reference connector's checks.
func ScalarTimestamp(res *StatementResult) (string, error) {
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 || len(res.Columns) > 1 {
		return "", errors.New("Doris scalar statement must return exactly one row and one column")
	}
	text, ok := res.CellText(0, 0)
	if !ok || ValidateTimestamp(text) != nil {
		return "", fmt.Errorf("Doris timestamp must strictly match yyyy-MM-dd HH:mm:ss: %v", res.Rows[0][0])
	}
	return text, nil
}
