package kafka

import (
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/internal/metrichelp"
)

// Metric names, each with what it means and its unit (the prometheus
// exporter's HELP). Records written and write latency are Benthos's own
// output_sent and output_latency_ns.
var (
	metricCommitted = metrichelp.Describe("kafka_franz_transactions_committed",
		"Kafka transactions kafka_franz committed in exactly_once mode, one per batch that had records to write. Unit: transactions.")
	metricAborted = metrichelp.Describe("kafka_franz_transactions_aborted",
		"Kafka transactions kafka_franz aborted in exactly_once mode (a failed write or commit; the batch is retried or nacked). Unit: transactions.")
	metricDropped = metrichelp.Describe("kafka_franz_replayed_dropped",
		"Records exactly_once mode did not write because their partition already holds their position (the tail filter dropped a replay). Unit: records.")
	metricRetries = metrichelp.Describe("kafka_franz_write_retries",
		"Attempts kafka_franz made again, in place, after a failed write of a batch. Unit: attempts.")
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
