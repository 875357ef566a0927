package input

import (
	"sync/atomic"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// metrics are the input's Benthos metrics; names are documented in docs/operating.md.
// Gauges never end in _total, which Prometheus reserves for counters, and are
// only ever Set: Benthos's plugin-exporter gauges start every Incr from zero.
type metrics struct {
	rows        *service.MetricCounter // table, phase, operation
	lag         *service.MetricGauge
	window      *service.MetricTimer
	splitsDone  *service.MetricGauge   // table
	splitsTotal *service.MetricGauge   // table
	expiredGaps *service.MetricCounter // table
	tables      *service.MetricGauge   // state: streaming, snapshotting, skipped

	droppedPartitions *service.MetricCounter // table
	unpairedUpdates   *service.MetricCounter // table
	idleTables        *service.MetricCounter // table windows skipped by skip_idle_tables
	windowRetries     *windowplan.Ages
	headroom          *headroom

	// Physical ms of the end of the last acked window, for the lag gauge.
	ackedWindowEndMs atomic.Int64
}

func newMetrics(m *service.Metrics) *metrics {
	return &metrics{
		rows:        m.NewCounter(metricRows, "table", "phase", "operation"),
		lag:         m.NewGauge(metricLag),
		window:      m.NewTimer(metricWindow),
		splitsDone:  m.NewGauge(metricSplitsDone, "table"),
		splitsTotal: m.NewGauge(metricSplits, "table"),
		expiredGaps: m.NewCounter(metricExpiredGaps, "table"),
		tables:      m.NewGauge(metricTables, "state"),

		droppedPartitions: m.NewCounter(metricDroppedPartitions, "table"),
		unpairedUpdates:   m.NewCounter(metricUnpairedUpdates, "table"),
		idleTables:        m.NewCounter(metricIdleSkipped),
		windowRetries:     windowplan.NewAges(m.NewCounter(metricWindowRetries, "table"), m.NewGauge(metricWindowRetryAge)),
		headroom:          newHeadroom(m),
	}
}

// committed updates the gauges that follow the committed checkpoint.
func (m *metrics) committed(st *checkpoint.State) {
	if st.Stream != nil && !st.Stream.Start.IsZero() {
		m.ackedWindowEndMs.Store(windowplan.BoundOf(st.Stream.Start).Ms())
		m.setLag(time.Now())
	}
	m.headroom.committed(st) // at most once a second: it walks every table
}

// idleSkipped counts the table windows a poll left out as idle.
func (m *metrics) idleSkipped(n int) {
	if n > 0 {
		m.idleTables.Incr(int64(n))
	}
}

// refreshLag runs at every poll tick: it sets the lag and the retention
// headroom, which grow old at the same pace while nothing is committed.
func (m *metrics) refreshLag() {
	now := time.Now()
	m.setLag(now)
	m.headroom.refresh(now)
}

// setLag sets the lag in seconds to the millisecond: whole seconds read 0
// at a 1 s poll.
func (m *metrics) setLag(now time.Time) {
	if end := m.ackedWindowEndMs.Load(); end > 0 {
		m.lag.SetFloat64(float64(now.UnixMilli()-end) / 1000)
	}
}
