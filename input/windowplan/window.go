package windowplan

import (
	"fmt"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Window is a binlog range [Start, End) of whole UTC seconds.
type Window struct{ Start, End Bound }

// WindowOf is the window a checkpoint stores; an open end stays unset.
// The checkpoint validated its bounds' text when it was decoded; a start
// that is not set is refused, never read as the epoch.
func WindowOf(what string, w *checkpoint.Window) (out Window, open bool, err error) {
	if w.Start.IsZero() {
		return out, false, fmt.Errorf("%s has no start", what)
	}
	out.Start = BoundOf(w.Start)
	if w.End.IsZero() {
		return out, true, nil
	}
	out.End = BoundOf(w.End)
	return out, false, nil
}

// Split halves [start, end) at a whole second, the precision of @incr
// bounds. Reading the halves one after the other reads the same changes
// in the same order. A window of one second cannot be split.
func Split(w Window) ([2]Window, bool) {
	startMs, endMs := w.Start.Ms(), w.End.Ms()
	if endMs-startMs < 2000 {
		return [2]Window{}, false
	}
	mid := BoundAt(startMs + (endMs-startMs)/2000*1000)
	return [2]Window{{Start: w.Start, End: mid}, {Start: mid, End: w.End}}, true
}
