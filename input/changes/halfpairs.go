package changes

import (
	"sync"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// halfPairEvery is how often, per table, the half-pair warning may repeat.
const halfPairEvery = time.Minute

// HalfPairLog rate-limits the warning about update halves that
// binlog_merge_updates delivers unmerged. A binlog_filter that splits
// updates does so in every window, and a line per poll would bury the log;
// the metric counts every half regardless.
type HalfPairLog struct {
	warn  func(format string, args ...any)
	every time.Duration
	now   func() time.Time

	mu     sync.Mutex
	tables map[string]*halfPairCount
}

// halfPairCount is one table's last warning and the halves seen since.
type halfPairCount struct {
	last  time.Time
	since int64
}

// NewHalfPairLog warns through warn (a Benthos logger's Warnf).
func NewHalfPairLog(warn func(string, ...any)) *HalfPairLog {
	return &HalfPairLog{warn: warn, every: halfPairEvery, now: time.Now, tables: map[string]*halfPairCount{}}
}

// Note records a half of table's update at pos, read in window w, and warns
// unless this table was warned about less than every ago.
func (h *HalfPairLog) Note(table string, w Window, pos checkpoint.Pos, reason string) {
	h.mu.Lock()
	c := h.tables[table]
	if c == nil {
		c = &halfPairCount{}
		h.tables[table] = c
	}
	t := h.now()
	if !c.last.IsZero() && t.Sub(c.last) < h.every {
		c.since++
		h.mu.Unlock()
		return
	}
	since := c.since
	c.last, c.since = t, 0
	h.mu.Unlock()
	h.warn("Binlog window [%s, %s) of %s: update half at TSO %d LSN %d (%s) delivered unmerged: %s. "+
		"%d more half(s) of this table since the previous warning; every half is counted in doris_binlog_unpaired_updates_total, and this warning repeats at most every %v per table",
		w.Start, w.End, table, pos.TSO, pos.LSN, opNames[pos.Op], reason, since, h.every)
}
