package kafka

import "github.com/redpanda-data/benthos/v4/public/service"

// Metric names. Records written and write latency are Benthos's own
// output_sent and output_latency_ns.
const (
	metricCommitted = "kafka_franz_transactions_committed"
	metricAborted   = "kafka_franz_transactions_aborted"
	metricDropped   = "kafka_franz_replayed_dropped"
	metricRetries   = "kafka_franz_write_retries"
)

// txnMetrics counts what exactly_once does.
type txnMetrics struct {
	committed, aborted, dropped *service.MetricCounter
	retries                     *service.MetricCounter // in-place attempts after a failed one
}

func newTxnMetrics(m *service.Metrics) *txnMetrics {
	return &txnMetrics{
		committed: m.NewCounter(metricCommitted),
		aborted:   m.NewCounter(metricAborted),
		dropped:   m.NewCounter(metricDropped),
		retries:   m.NewCounter(metricRetries),
	}
}
