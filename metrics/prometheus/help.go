package prometheus

import (
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/internal/metrichelp"
)

// benthosHelp says what the component metrics Benthos itself reports mean,
// by their Benthos names (timers in nanoseconds, exported in seconds).
var benthosHelp = map[string]string{
	"input_received":           "Messages an input received. Unit: messages.",
	"input_latency_ns":         "Time from an input reading a batch to its acknowledgement. Unit: seconds.",
	"input_connection_up":      "Times an input connected. Unit: connections.",
	"input_connection_failed":  "Times an input failed to connect. Unit: attempts.",
	"input_connection_lost":    "Times an input lost its connection. Unit: disconnections.",
	"output_sent":              "Messages an output wrote. Unit: messages.",
	"output_batch_sent":        "Batches an output wrote. Unit: batches.",
	"output_error":             "Failed writes of an output; each nacks its batch. Unit: errors.",
	"output_latency_ns":        "Time an output took to write a batch. Unit: seconds.",
	"output_connection_up":     "Times an output connected. Unit: connections.",
	"output_connection_failed": "Times an output failed to connect. Unit: attempts.",
	"output_connection_lost":   "Times an output lost its connection. Unit: disconnections.",
	"processor_received":       "Messages a processor received. Unit: messages.",
	"processor_batch_received": "Batches a processor received. Unit: batches.",
	"processor_sent":           "Messages a processor passed on. Unit: messages.",
	"processor_batch_sent":     "Batches a processor passed on. Unit: batches.",
	"processor_error":          "Messages a processor failed on. Unit: messages.",
	"processor_latency_ns":     "Time a processor took over a batch. Unit: seconds.",
	"cache_success":            "Cache operations that succeeded. Unit: operations.",
	"cache_error":              "Cache operations that failed. Unit: operations.",
	"cache_not_found":          "Cache gets of a key the cache does not hold. Unit: operations.",
	"cache_duplicate":          "Cache adds of a key the cache already holds. Unit: operations.",
	"cache_latency_ns":         "Time a cache operation took. Unit: seconds.",
	"rate_limit_checked":       "Rate limit checks. Unit: checks.",
	"rate_limit_triggered":     "Rate limit checks that had to wait. Unit: checks.",
	"rate_limit_error":         "Rate limit checks that failed. Unit: checks.",
	"buffer_received":          "Messages a buffer received. Unit: messages.",
	"buffer_batch_received":    "Batches a buffer received. Unit: batches.",
	"buffer_sent":              "Messages a buffer passed on. Unit: messages.",
	"buffer_batch_sent":        "Batches a buffer passed on. Unit: batches.",
	"buffer_latency_ns":        "Time a message spent in a buffer. Unit: seconds.",
}

// help is the HELP text of the metric Benthos reports as benthosName: what
// the component that registers it described (internal/metrichelp), else
// Benthos's own meaning, else a line that says only where it comes from.
func help(kind, benthosName string) string {
	if text, ok := metrichelp.Text(benthosName); ok {
		return text
	}
	if text, ok := benthosHelp[benthosName]; ok {
		return text
	}
	return fmt.Sprintf("Benthos %s %s.", kind, benthosName)
}
