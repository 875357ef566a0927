package doris

import "sync"

// FERotation is the order in which a client tries its FEs: attempt i of a
// call goes to FE (start+i) mod n, where start is the FE that last
// answered, so a healthy FE keeps serving and the others are tried in turn
// when it fails. The FE REST client and the doris_load transport share it.
type FERotation struct {
	fes []string

	mu   sync.Mutex
	pref int // index of the FE that last answered
}

// NewFERotation rotates over fes, which must not be empty.
func NewFERotation(fes []string) *FERotation {
	return &FERotation{fes: append([]string(nil), fes...)}
}

// Start is where a call begins: the FE that last answered.
func (r *FERotation) Start() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pref
}

// At is the FE of attempt i of a call that began at start.
func (r *FERotation) At(start, i int) string { return r.fes[(start+i)%len(r.fes)] }

// MarkGood makes fe, which just answered, where the next call begins.
func (r *FERotation) MarkGood(fe string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, f := range r.fes {
		if f == fe {
			r.pref = i
			return
		}
	}
}
