package txmarkers

import "github.com/redpanda-data/benthos/v4/public/service"

// Drop is batch without markers, for an output that has no use for them;
// batch itself when it holds none, which is the common case.
func Drop(batch service.MessageBatch) service.MessageBatch {
	n := 0
	for _, m := range batch {
		if IsMarker(m) {
			n++
		}
	}
	if n == 0 {
		return batch
	}
	out := make(service.MessageBatch, 0, len(batch)-n)
	for _, m := range batch {
		if !IsMarker(m) {
			out = append(out, m)
		}
	}
	return out
}
