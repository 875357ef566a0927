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
	ends []bound // ascending
}

// restore takes the ends a stored checkpoint planned (their text was
// checked, ascending, where the checkpoint was decoded).
func (p *plannedEnds) restore(st *checkpoint.State) {
	if st == nil || st.Stream == nil {
		return
	}
	ends := make([]bound, 0, len(st.Stream.Planned))
	for _, e := range st.Stream.Planned {
		ends = append(ends, boundOf(e))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ends = ends
}

// next returns the planned end of the window that starts at start.
func (p *plannedEnds) next(start bound) (bound, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.ends {
		if e > start {
			return e, true
		}
	}
	return 0, false
}

func (p *plannedEnds) add(end bound) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.ends); n == 0 || p.ends[n-1] < end {
		p.ends = append(p.ends, end)
	}
}

// attach writes into st the ends beyond its own window, forgetting those
// it has passed. A window without a start forgets nothing; the save then
// fails on it loudly (checkpoint validation).
func (p *plannedEnds) attach(st *checkpoint.State) *checkpoint.State {
	if st.Stream == nil {
		return st
	}
	cur, open, err := windowOf("binlog stream window", st.Stream)
	pos := cur.end
	if open {
		pos = cur.start
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.ends[:0]
	for _, e := range p.ends {
		if err != nil || e > pos {
			keep = append(keep, e)
		}
	}
	p.ends = keep
	cp := *st
	w := *st.Stream
	w.Planned = nil
	for _, e := range keep {
		w.Planned = append(w.Planned, e.stored())
	}
	cp.Stream = &w
	return &cp
}
