package input

import (
	"context"
	"errors"
	"sync"
)

// errPoolClosed is the answer of a closed pool: the run is ending.
var errPoolClosed = errors.New("the Flight SQL session pool is closed: the input is stopping")

// closer is what the pool keeps: a Flight SQL session (a *flight.Client),
// or in the pool's unit tests a stand-in that counts its closes.
type closer interface{ Close() error }

// sessionPool bounds the Flight SQL sessions of one input. Doris counts
// every open session, idle or busy, against the user's
// max_user_connections (100 by default, shared with MySQL connections)
// and the FE's qe_max_connection, and a session over either is refused at
// its Handshake (doris-facts §17.1). So the pool never has more than max
// sessions open or being dialled, idle ones included; a caller that needs
// one more waits until another is handed back, first come first served.
// Idle sessions are kept for the next query: dialling one costs three FE
// requests (handshake, time zone, exec_mem_limit).
type sessionPool[S closer] struct {
	max  int
	dial func(context.Context) (S, error)

	mu      sync.Mutex
	idle    []S
	open    int // sessions open or being dialled, idle ones included
	peak    int // the most open at once
	waiters []chan grant[S]
	closed  bool
}

// grant is what a waiter receives: an idle session (has), or a free slot
// to dial one into, or the pool's closing (err).
type grant[S closer] struct {
	s   S
	has bool
	err error
}

func newSessionPool[S closer](maxOpen int, dial func(context.Context) (S, error)) *sessionPool[S] {
	return &sessionPool[S]{max: max(maxOpen, 1), dial: dial}
}

// acquire takes an idle session, dials a new one while fewer than max are
// open, or else waits for one to be handed back or ctx to end.
func (p *sessionPool[S]) acquire(ctx context.Context) (S, error) {
	var zero S
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return zero, errPoolClosed
	}
	if n := len(p.idle); n > 0 {
		s := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return s, nil
	}
	if p.open < p.max {
		p.takeSlot()
		p.mu.Unlock()
		return p.dialInto(ctx)
	}
	w := make(chan grant[S], 1)
	p.waiters = append(p.waiters, w)
	p.mu.Unlock()

	select {
	case g := <-w:
		return p.use(ctx, g)
	case <-ctx.Done():
	}
	p.mu.Lock()
	for i, x := range p.waiters {
		if x == w {
			p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
			p.mu.Unlock()
			return zero, context.Cause(ctx)
		}
	}
	p.mu.Unlock()
	// Granted as ctx ended: hand the grant on, so that no slot is lost.
	g := <-w
	if g.err == nil {
		if g.has {
			p.release(g.s, true)
		} else {
			p.freeSlot()
		}
	}
	return zero, context.Cause(ctx)
}

// use turns a waiter's grant into a session.
func (p *sessionPool[S]) use(ctx context.Context, g grant[S]) (S, error) {
	if g.err != nil || g.has {
		return g.s, g.err
	}
	return p.dialInto(ctx)
}

// dialInto dials a session into a slot already taken; a failed dial gives
// the slot back.
func (p *sessionPool[S]) dialInto(ctx context.Context) (S, error) {
	s, err := p.dial(ctx)
	if err != nil {
		p.freeSlot()
		var zero S
		return zero, err
	}
	return s, nil
}

// release hands a session back: to the first waiter, else to the idle
// list. One that failed is closed, since its server side may be gone, and
// its slot goes to the first waiter, who dials a new one.
func (p *sessionPool[S]) release(s S, healthy bool) {
	p.mu.Lock()
	if !healthy || p.closed {
		p.mu.Unlock()
		_ = s.Close()
		p.freeSlot()
		return
	}
	if len(p.waiters) > 0 {
		w := p.waiters[0]
		p.waiters = p.waiters[1:]
		p.mu.Unlock()
		w <- grant[S]{s: s, has: true}
		return
	}
	p.idle = append(p.idle, s)
	p.mu.Unlock()
}

// freeSlot gives back the slot of a session closed or never dialled: the
// first waiter takes it over.
func (p *sessionPool[S]) freeSlot() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open--
	if len(p.waiters) > 0 && !p.closed {
		w := p.waiters[0]
		p.waiters = p.waiters[1:]
		p.takeSlot()
		w <- grant[S]{}
	}
}

// takeSlot counts one more session open; p.mu is held.
func (p *sessionPool[S]) takeSlot() {
	p.open++
	p.peak = max(p.peak, p.open)
}

// close ends the idle sessions and fails every waiter; sessions in use are
// closed as they are handed back.
func (p *sessionPool[S]) close() {
	p.mu.Lock()
	idle, waiters := p.idle, p.waiters
	p.idle, p.waiters, p.closed = nil, nil, true
	p.open -= len(idle)
	p.mu.Unlock()
	for _, s := range idle {
		_ = s.Close()
	}
	for _, w := range waiters {
		w <- grant[S]{err: errPoolClosed}
	}
}

// stats is how many sessions are open now (idle ones included) and the
// most that were open at once.
func (p *sessionPool[S]) stats() (open, peak int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open, p.peak
}

// limit is the most sessions the pool opens at once.
func (p *sessionPool[S]) limit() int { return p.max }
