package windowplan

import (
	"sync"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Ends are the window ends chosen beyond the committed position.
// Each is saved with the checkpoint before the first row of its window goes
// out, so that after a crash the input reads exactly the same windows again
// and emits exactly the same batches: an output that derives a load label
// from a batch's positions (doris_load) then sees the same labels and
// Doris drops the repeated loads. The zero Ends is ready to use.
type Ends struct {
	mu   sync.Mutex
	ends []Bound // ascending
}

// Restore takes the ends a stored checkpoint planned (their text was
// checked, ascending, where the checkpoint was decoded).
func (p *Ends) Restore(st *checkpoint.State) {
	if st == nil || st.Stream == nil {
		return
	}
	ends := make([]Bound, 0, len(st.Stream.Planned))
	for _, e := range st.Stream.Planned {
		ends = append(ends, BoundOf(e))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ends = ends
}

// Next returns the planned end of the window that starts at start.
func (p *Ends) Next(start Bound) (Bound, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.ends {
		if e > start {
			return e, true
		}
	}
	return 0, false
}

// Add plans end; an end that is not past the last one planned is
// dropped, so the ends stay ascending.
func (p *Ends) Add(end Bound) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.ends); n == 0 || p.ends[n-1] < end {
		p.ends = append(p.ends, end)
	}
}

// Attach writes into a copy of st the ends beyond its own window,
// forgetting those it has passed. A window without a start forgets
// nothing; the save then fails on it loudly (checkpoint validation).
func (p *Ends) Attach(st *checkpoint.State) *checkpoint.State {
	if st.Stream == nil {
		return st
	}
	cur, open, err := WindowOf("binlog stream window", st.Stream)
	pos := cur.End
	if open {
		pos = cur.Start
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
		w.Planned = append(w.Planned, e.Stored())
	}
	cp.Stream = &w
	return &cp
}
