package input

import (
	"sync/atomic"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// metrics are the input's Benthos metrics; names are documented in the README.
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

	// Physical ms of the end of the last acked window, for the lag gauge.
	ackedWindowEndMs atomic.Int64
}

func newMetrics(m *service.Metrics) *metrics {
	return &metrics{
		rows:        m.NewCounter("doris_binlog_rows_total", "table", "phase", "operation"),
		lag:         m.NewGauge("doris_binlog_lag_seconds"),
		window:      m.NewTimer("doris_binlog_window_seconds"),
		splitsDone:  m.NewGauge("doris_binlog_snapshot_splits_done", "table"),
		splitsTotal: m.NewGauge("doris_binlog_snapshot_splits", "table"),
		expiredGaps: m.NewCounter("doris_binlog_expired_gaps_total", "table"),
		tables:      m.NewGauge("doris_binlog_tables", "state"),

		droppedPartitions: m.NewCounter("doris_binlog_dropped_partitions_total", "table"),
		unpairedUpdates:   m.NewCounter("doris_binlog_unpaired_updates_total", "table"),
		idleTables:        m.NewCounter("doris_binlog_idle_windows_skipped_total"),
		windowRetries:     windowplan.NewAges(m.NewCounter("doris_binlog_window_retries_total", "table"), m.NewGauge("doris_binlog_window_retry_age_seconds")),
	}
}

// committed updates the gauges that follow the committed checkpoint.
func (m *metrics) committed(st *checkpoint.State) {
	if st.Stream == nil {
		return
	}
	if !st.Stream.Start.IsZero() {
		m.ackedWindowEndMs.Store(windowplan.BoundOf(st.Stream.Start).Ms())
		m.refreshLag()
	}
}

// idleSkipped counts the table windows a poll left out as idle.
func (m *metrics) idleSkipped(n int) {
	if n > 0 {
		m.idleTables.Incr(int64(n))
	}
}

func (m *metrics) refreshLag() {
	if end := m.ackedWindowEndMs.Load(); end > 0 {
		m.lag.Set((time.Now().UnixMilli() - end) / 1000)
	}
}
