package harness

import (
	"fmt"
	"maps"
)

// StrictConsumer applies a table's snapshot rows and then its binlog
// events the way a consumer that trusts them would, and notes every event
// that does not fit what it holds: a snapshot row or insert of a key it
// already has, an update or delete of a key it lacks, an update whose
// before-image is not its current row, a binlog position that does not
// move forward. Redeliveries (a repeated snapshot row equal to the one it
// holds, a binlog position at or before the last one applied) break the
// rules only when AllowRedelivery is false; otherwise they are counted
// and skipped, as a consumer that tracks positions skips them.
type StrictConsumer struct {
	Key             string
	AllowRedelivery bool
	Rows            map[string]Row
	Violations      []string
	Redelivered     int
	last            [3]int64
}

// NewStrictConsumer starts an empty consumer keyed by key.
func NewStrictConsumer(key string) *StrictConsumer {
	return &StrictConsumer{Key: key, Rows: map[string]Row{}}
}

// ApplyAll applies evs in order.
func (c *StrictConsumer) ApplyAll(evs []Event) {
	for _, ev := range evs {
		c.Apply(ev)
	}
}

// Apply applies one event.
func (c *StrictConsumer) Apply(ev Event) {
	row := textRow(ev.Row)
	k, ok := row[c.Key]
	if !ok {
		c.violate("event without key column %s: %v", c.Key, ev.Row)
		return
	}
	have, has := c.Rows[k]
	if ev.Phase != "binlog" {
		switch {
		case has && c.AllowRedelivery && maps.Equal(have, row):
			c.Redelivered++
		case has:
			c.violate("snapshot row of key %s it already has: %v, holding %v", k, row, have)
		default:
			c.Rows[k] = row
		}
		return
	}
	p := ev.Pos()
	if !PosLess(c.last, p) {
		if c.AllowRedelivery {
			c.Redelivered++
			return
		}
		c.violate("binlog %s of key %s at %v does not come after %v", ev.Operation, k, p, c.last)
	}
	c.last = p
	switch ev.Operation {
	case "insert":
		if has {
			c.violate("insert of key %s it already has (tso %d): %v, holding %v", k, ev.TSO, row, have)
		}
		c.Rows[k] = row
	case "update_before":
		switch {
		case !has:
			c.violate("update of key %s it does not have (tso %d)", k, ev.TSO)
		case !maps.Equal(have, row):
			c.violate("update of key %s (tso %d) has before-image %v, but it holds %v", k, ev.TSO, row, have)
		}
	case "update_after", "update":
		if !has {
			c.violate("update of key %s it does not have (tso %d)", k, ev.TSO)
		}
		c.Rows[k] = row
	case "delete":
		if !has {
			c.violate("delete of key %s it does not have (tso %d)", k, ev.TSO)
		}
		delete(c.Rows, k)
	default:
		c.violate("unknown operation %q", ev.Operation)
	}
}

func (c *StrictConsumer) violate(format string, args ...any) {
	c.Violations = append(c.Violations, fmt.Sprintf(format, args...))
}

// TextRow is a message body in Row form, as the consumer compares rows.
func TextRow(m map[string]any) Row { return textRow(m) }
