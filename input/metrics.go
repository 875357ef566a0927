package input

import (
	"sync/atomic"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// metrics are the input's Benthos metrics; names are documented in the README.
// Gauges never end in _total, which Prometheus reserves for counters.
type metrics struct {
	rows        *service.MetricCounter // phase, operation
	lag         *service.MetricGauge
	window      *service.MetricTimer
	splitsDone  *service.MetricGauge
	splitsTotal *service.MetricGauge
	expiredGaps *service.MetricCounter

	// Physical ms of the end of the last acked window, for the lag gauge.
	ackedWindowEndMs atomic.Int64
	zoneOffsetMs     atomic.Int64
}

func newMetrics(m *service.Metrics) *metrics {
	ms := &metrics{
		rows:        m.NewCounter("doris_binlog_rows_total", "phase", "operation"),
		lag:         m.NewGauge("doris_binlog_lag_seconds"),
		window:      m.NewTimer("doris_binlog_window_seconds"),
		splitsDone:  m.NewGauge("doris_binlog_snapshot_splits_done"),
		splitsTotal: m.NewGauge("doris_binlog_snapshot_splits"),
		expiredGaps: m.NewCounter("doris_binlog_expired_gaps_total"),
	}
	// Exporters create a series on its first use; at zero it is there for
	// rate() and alerts from the first scrape.
	ms.expiredGaps.Incr(0)
	return ms
}

// committed updates the gauges that follow the committed checkpoint.
func (m *metrics) committed(st *checkpoint.State) {
	if st.Phase != phaseBinlog {
		return
	}
	if ms, ok := wallToMs(st.WindowStart, m.zoneOffsetMs.Load()); ok {
		m.ackedWindowEndMs.Store(ms)
		m.refreshLag()
	}
}

func (m *metrics) refreshLag() {
	if end := m.ackedWindowEndMs.Load(); end > 0 {
		m.lag.Set((time.Now().UnixMilli() - end) / 1000)
	}
}
