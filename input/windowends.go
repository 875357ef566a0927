package input

import (
	"sync"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// plannedEnds are the window ends chosen beyond the committed position.
// Each is saved with the checkpoint before the first row of its window goes
// out, so that after a crash the input reads exactly the same windows again
// and emits exactly the same batches: an output that derives a load label
// from a batch's positions (doris_load) then sees the same labels and
// Doris drops the repeated loads.
type plannedEnds struct {
	mu   sync.Mutex
	ends []string // ascending
}

// restore takes the ends a stored checkpoint planned.
func (p *plannedEnds) restore(st *checkpoint.State) {
	if st == nil || st.Stream == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ends = append([]string(nil), st.Stream.Planned...)
}

// next returns the planned end of the window that starts at start.
func (p *plannedEnds) next(start string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.ends {
		if e > start {
			return e, true
		}
	}
	return "", false
}

func (p *plannedEnds) add(end string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.ends); n == 0 || p.ends[n-1] < end {
		p.ends = append(p.ends, end)
	}
}

// attach writes into st the ends beyond its own window, forgetting those
// it has passed.
func (p *plannedEnds) attach(st *checkpoint.State) *checkpoint.State {
	if st.Stream == nil {
		return st
	}
	pos := max(st.Stream.Start, st.Stream.End)
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.ends[:0]
	for _, e := range p.ends {
		if e > pos {
			keep = append(keep, e)
		}
	}
	p.ends = keep
	cp := *st
	w := *st.Stream
	w.Planned = append([]string(nil), keep...)
	cp.Stream = &w
	return &cp
}
