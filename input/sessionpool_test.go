package input

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSession stands for a Flight session: the pool's own rules are tested
// here, its use against the simulator in conn_test.go.
type fakeSession struct {
	id     int
	closes *atomic.Int32
	live   *atomic.Int32 // sessions dialled and not yet closed
}

func (f *fakeSession) Close() error {
	f.closes.Add(1)
	f.live.Add(-1)
	return nil
}

type fakeDialer struct {
	dials, closes, live atomic.Int32
	peakLive            atomic.Int32
	fail                atomic.Int32 // the next N dials fail
}

func (d *fakeDialer) dial(ctx context.Context) (*fakeSession, error) {
	if d.fail.Add(-1) >= 0 {
		return nil, errors.New("dial refused")
	}
	d.fail.Store(0)
	n := d.live.Add(1)
	for {
		p := d.peakLive.Load()
		if n <= p || d.peakLive.CompareAndSwap(p, n) {
			break
		}
	}
	return &fakeSession{id: int(d.dials.Add(1)), closes: &d.closes, live: &d.live}, nil
}

// Many readers at once never have more than max sessions open, and every
// one of them is served.
func TestSessionPoolNeverPassesItsLimit(t *testing.T) {
	const limit, readers = 3, 40
	d := &fakeDialer{}
	p := newSessionPool(limit, d.dial)
	ctx := testCtx(t)
	var wg sync.WaitGroup
	var served atomic.Int32
	for i := range readers {
		wg.Go(func() {
			s, err := p.acquire(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
			served.Add(1)
			p.release(s, i%7 != 0) // some fail, and are replaced
		})
	}
	wg.Wait()
	if served.Load() != readers {
		t.Fatalf("%d of %d readers served", served.Load(), readers)
	}
	if open, peak := p.stats(); peak > limit || d.peakLive.Load() > limit || open > limit {
		t.Fatalf("peak %d open (%d live at once), %d open now; limit %d", peak, d.peakLive.Load(), open, limit)
	}
	if open, _ := p.stats(); int(d.live.Load()) != open {
		t.Fatalf("the pool counts %d open, %d are", open, d.live.Load())
	}
}

// A session handed back goes to a waiting reader as it is, without a new
// dial; a failed one is closed and its slot lets the waiter dial.
func TestSessionPoolHandsSessionsToWaiters(t *testing.T) {
	d := &fakeDialer{}
	p := newSessionPool(1, d.dial)
	ctx := testCtx(t)
	s1, err := p.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *fakeSession)
	go func() {
		s, err := p.acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	waitWaiters(t, p, 1)
	p.release(s1, true)
	if s := <-got; s != s1 || d.dials.Load() != 1 {
		t.Fatalf("the waiter got session %d after %d dials, want the first one handed over", s.id, d.dials.Load())
	}
	go func() {
		s, err := p.acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	waitWaiters(t, p, 1)
	p.release(s1, false)
	if s := <-got; s == s1 || d.closes.Load() != 1 || d.dials.Load() != 2 {
		t.Fatalf("after a failed session the waiter got %v (%d dials, %d closes), want a new one", s == s1, d.dials.Load(), d.closes.Load())
	}
}

// A reader that stops waiting, or whose dial fails, leaves no slot taken.
func TestSessionPoolLosesNoSlot(t *testing.T) {
	d := &fakeDialer{}
	p := newSessionPool(2, d.dial)
	ctx := testCtx(t)
	d.fail.Store(1)
	if _, err := p.acquire(ctx); err == nil {
		t.Fatal("a failed dial gave a session")
	}
	a, err1 := p.acquire(ctx)
	b, err2 := p.acquire(ctx)
	if err1 != nil || err2 != nil {
		t.Fatalf("after a failed dial: %v, %v; want both slots free", err1, err2)
	}
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := p.acquire(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third reader got %v, want it to wait until its context ends", err)
	}
	if len(p.waiters) != 0 {
		t.Fatal("the reader that gave up is still waiting")
	}
	p.release(a, false)
	p.release(b, true)
	if open, peak := p.stats(); open != 1 || peak != 2 {
		t.Fatalf("%d open, peak %d; want 1 and 2", open, peak)
	}
	x, err1 := p.acquire(ctx)
	y, err2 := p.acquire(ctx)
	if err1 != nil || err2 != nil || x == y {
		t.Fatalf("both slots after the failures: %v, %v", err1, err2)
	}
}

// Close ends the idle sessions and every waiter; a session handed back
// afterwards is closed, and no new one is dialled.
func TestSessionPoolClose(t *testing.T) {
	d := &fakeDialer{}
	p := newSessionPool(2, d.dial)
	ctx := testCtx(t)
	a, _ := p.acquire(ctx)
	b, _ := p.acquire(ctx)
	waited := make(chan error, 1)
	go func() {
		_, err := p.acquire(ctx)
		waited <- err
	}()
	waitWaiters(t, p, 1)
	p.close()
	if err := <-waited; !errors.Is(err, errPoolClosed) {
		t.Fatalf("a waiter at close got %v, want errPoolClosed", err)
	}
	p.release(a, true)
	p.release(b, true)
	if d.live.Load() != 0 {
		t.Fatalf("%d sessions left open after close", d.live.Load())
	}
	if _, err := p.acquire(ctx); !errors.Is(err, errPoolClosed) || d.dials.Load() != 2 {
		t.Fatalf("acquire after close: %v after %d dials", err, d.dials.Load())
	}

	idle := newSessionPool(2, d.dial)
	s, _ := idle.acquire(ctx)
	idle.release(s, true)
	if d.live.Load() != 1 {
		t.Fatalf("%d sessions live, want the idle one", d.live.Load())
	}
	idle.close()
	if open, _ := idle.stats(); d.live.Load() != 0 || open != 0 {
		t.Fatalf("close left %d idle sessions open (%d counted)", d.live.Load(), open)
	}
}

func waitWaiters(t *testing.T, p *sessionPool[*fakeSession], n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		w := len(p.waiters)
		p.mu.Unlock()
		if w == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d readers waiting, want %d", w, n)
		}
		time.Sleep(time.Millisecond)
	}
}
