package input

import (
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// headroomEvery bounds how often a commit recomputes the positions: a
// commit may come with every batch, and with thousands of tables a walk of
// the state at each would cost more than the gauge is worth at a TTL of
// hours. The poll tick refreshes the ages in between.
const headroomEvery = time.Second

// headroom publishes, per table, how long Doris keeps the changes the
// input still needs: binlog.ttl_seconds minus the age of the table's
// position (its catch-up window's start, its own start while it
// snapshots after joining, else the shared chain's start), and the
// smallest of those. Doris drops a change once its commit time is older
// than now minus the TTL, so at zero the oldest change still needed is
// gone (an expired gap, see guardExpiry).
type headroom struct {
	perTable *service.MetricGauge // table
	min      *service.MetricGauge

	mu          sync.Mutex
	ttl         map[string]int64 // table -> binlog.ttl_seconds from its DDL
	pos         map[string]int64 // table -> UTC ms of its position
	extractedAt time.Time
	now         func() time.Time // time.Now; a test sets its own clock
}

func newHeadroom(m *service.Metrics) *headroom {
	return &headroom{
		perTable: m.NewGauge(metricHeadroom, "table"),
		min:      m.NewGauge(metricHeadroomMin),
		ttl:      map[string]int64{},
		pos:      map[string]int64{},
		now:      time.Now,
	}
}

// noteTTL records a table's binlog.ttl_seconds whenever its DDL is read.
func (h *headroom) noteTTL(table string, ttl int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ttl[table] = ttl
}

// committed takes the positions of a committed state (at most once per
// headroomEvery) and publishes the headroom.
func (h *headroom) committed(st *checkpoint.State) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.extractedAt.IsZero() && now.Sub(h.extractedAt) < headroomEvery {
		return
	}
	h.extractedAt = now
	h.pos = positionsMs(st)
	h.publish(now)
}

// refresh publishes the headroom of the last positions at now.
func (h *headroom) refresh(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.publish(now)
}

func (h *headroom) publish(now time.Time) {
	var least float64
	seen := false
	for table, posMs := range h.pos {
		ttl := h.ttl[table]
		if ttl <= 0 {
			continue // kept for ever, or the DDL not read yet
		}
		left := float64(ttl) - float64(now.UnixMilli()-posMs)/1000
		h.perTable.SetFloat64(left, table)
		if !seen || left < least {
			least, seen = left, true
		}
	}
	if seen {
		h.min.SetFloat64(least)
	}
}

// positionsMs is where each table's binlog reading stands in st: the
// oldest change it still needs. A finished snapshot-only table, or any
// table of an input without a chain, needs none.
func positionsMs(st *checkpoint.State) map[string]int64 {
	out := make(map[string]int64, len(st.Tables))
	for name, t := range st.Tables {
		switch {
		case t.Phase == checkpoint.PhaseCatchUp && t.CatchUp != nil:
			out[name] = t.CatchUp.Start.Ms()
		case (t.Phase == checkpoint.PhaseCatchUp || t.Phase == checkpoint.PhaseSnapshot) && !t.Start.IsZero():
			out[name] = t.Start.Ms()
		case (t.Phase == checkpoint.PhaseBinlog || t.Phase == checkpoint.PhaseSnapshot) && st.Stream != nil && !st.Stream.Start.IsZero():
			out[name] = st.Stream.Start.Ms()
		}
	}
	return out
}
