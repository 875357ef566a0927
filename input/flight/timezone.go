package flight

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// UTCZone is the time_zone value that puts a Doris session in UTC. It is an
// offset rather than 'UTC' because older FEs aliased 'UTC' to Europe/London,
// which has summer time; an offset has no transitions on any version.
const UTCZone = "+00:00"

// UTCSessionSQL sets a session's time_zone to UTC. @incr bounds are parsed
// in the session zone (OlapScanNode.parseChangeTimestamp ->
// TimeUtils.timeStringToLong), so in UTC a window bound never falls in a
// repeated or skipped hour.
const UTCSessionSQL = "SET time_zone = '" + UTCZone + "'"

// UseUTC puts c's FE session in UTC and checks that it took.
// Doris keeps session variables on the ConnectContext of the bearer token,
// so this lasts for the token; Exec remembers the statement and a
// re-handshake (a new token, a new session) replays it.
func UseUTC(ctx context.Context, c *Client) error {
	if err := c.Exec(ctx, UTCSessionSQL); err != nil {
		return fmt.Errorf("doris flight sql at %s: set the session time_zone to UTC: %w", c.Addr(), err)
	}
	zone, err := SessionTimeZone(ctx, c)
	if err != nil {
		return err
	}
	if zone != UTCZone {
		return fmt.Errorf("doris flight sql at %s: session time_zone is %q after %s", c.Addr(), zone, UTCSessionSQL)
	}
	return nil
}

// DialUTC is Dial followed by UseUTC: every statement of the returned
// client runs in UTC.
func DialUTC(ctx context.Context, cfg Config) (*Client, error) {
	c, err := Dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := UseUTC(ctx, c); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// SessionTimeZone reads @@time_zone of c's FE session.
func SessionTimeZone(ctx context.Context, c *Client) (string, error) {
	var zone string
	found := false
	err := c.Query(ctx, "SELECT @@time_zone", func(rec arrow.RecordBatch) error {
		if found || rec.NumRows() == 0 || rec.NumCols() != 1 {
			return nil
		}
		switch col := rec.Column(0).(type) {
		case *array.String:
			zone = col.Value(0)
		case *array.LargeString:
			zone = col.Value(0)
		case *array.Binary:
			zone = string(col.Value(0))
		default:
			return fmt.Errorf("@@time_zone came back as %s", col.DataType())
		}
		found = true
		return nil
	})
	if err == nil && !found {
		err = errors.New("no row")
	}
	if err != nil {
		return "", fmt.Errorf("doris flight sql at %s: read the session time_zone: %w", c.Addr(), err)
	}
	return zone, nil
}
