package connpool

import "time"

// ExpireIdle ends every connection idle (between commands) for longer than
// WaitTimeout at now, as ConnectContext.checkTimeout does for a COM_SLEEP
// context: its end func is called, then its slot is released. It returns
// how many it ended.
func (p *Pool) ExpireIdle(now time.Time) int {
	var ending []*Conn
	p.mu.Lock()
	for _, c := range p.conns {
		if c.busy == 0 && !c.ending && now.Sub(c.lastActive) > p.limits.WaitTimeout {
			c.ending = true
			ending = append(ending, c)
		}
	}
	p.mu.Unlock()
	// The end funcs run outside the lock: one may take its protocol's
	// locks, and those may be held by a caller that is registering in the
	// pool. The slot is given back only after its end, as Doris kills the
	// context before it unregisters it: a pool that counts a slot free
	// never holds a session that still answers.
	for _, c := range ending {
		if c.end != nil {
			c.end()
		}
		p.mu.Lock()
		p.releaseLocked(c)
		p.mu.Unlock()
	}
	return len(ending)
}

// Start runs the timeout checker until Close: each tick ends the idle
// connections. Doris checks every second; a shorter wait_timeout is
// checked more often so that it is kept within a fraction of itself.
func (p *Pool) Start() {
	p.mu.Lock()
	if p.running {
		p.mu.Unlock()
		return
	}
	p.running = true
	p.mu.Unlock()
	tick := min(time.Second, max(p.limits.WaitTimeout/4, 10*time.Millisecond))
	go func() {
		defer close(p.done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.ExpireIdle(p.now())
			}
		}
	}()
}

// Close stops the timeout checker started by Start and waits for it.
func (p *Pool) Close() {
	p.stopOnce.Do(func() { close(p.stop) })
	p.mu.Lock()
	running := p.running
	p.mu.Unlock()
	if running {
		<-p.done
	}
}
