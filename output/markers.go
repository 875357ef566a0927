package output

import (
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// withoutMarkers is batch without doris_binlog's transaction markers
// (include_transaction_markers): a Stream Load commits per target table
// and batch, so a Doris transaction's boundaries have nothing to bound
// here, and a marker has no table to load into. batch itself is returned
// when it holds none, which is the common case.
func withoutMarkers(batch service.MessageBatch) service.MessageBatch {
	n := 0
	for _, m := range batch {
		if txmarkers.IsMarker(m) {
			n++
		}
	}
	if n == 0 {
		return batch
	}
	out := make(service.MessageBatch, 0, len(batch)-n)
	for _, m := range batch {
		if !txmarkers.IsMarker(m) {
			out = append(out, m)
		}
	}
	return out
}
