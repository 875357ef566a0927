package connpool

import (
	"errors"
	"sync"
	"testing"
	"time"
)

func newPool(t *testing.T, l Limits) *Pool {
	t.Helper()
	p, err := New(l)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustRegister(t *testing.T, p *Pool, user string, proto Protocol) *Conn {
	t.Helper()
	c, err := p.Register(user, proto, nil)
	if err != nil {
		t.Fatalf("register %s over %s: %v", user, proto, err)
	}
	return c
}

func refusal(t *testing.T, p *Pool, user string, proto Protocol) *LimitError {
	t.Helper()
	c, err := p.Register(user, proto, nil)
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("register %s over %s: got %v, %v; want a LimitError", user, proto, c, err)
	}
	return le
}

func TestDefaultsAreDoris(t *testing.T) {
	l := newPool(t, Limits{}).Limits()
	want := Limits{MaxConnections: 1024, FlightMaxConnections: 512, UserMaxConnections: 100, WaitTimeout: 8 * time.Hour}
	if l != want {
		t.Fatalf("limits %+v, want %+v", l, want)
	}
	// The Flight share never exceeds the pool's limit.
	if got := (Limits{MaxConnections: 10, FlightMaxConnections: 4096}).Effective().FlightMaxConnections; got != 10 {
		t.Errorf("flight share %d, want 10", got)
	}
	if _, err := New(Limits{UserMaxConnections: 10001}); err == nil {
		t.Error("a user limit above 10000 was accepted")
	}
}

// TestAUsersLimitCountsBothProtocols: one user's MySQL connections and
// Flight sessions count together; another user is not affected.
func TestAUsersLimitCountsBothProtocols(t *testing.T) {
	p := newPool(t, Limits{MaxConnections: 10, UserMaxConnections: 2})
	mustRegister(t, p, "alice", MySQL)
	mustRegister(t, p, "alice", Flight)
	le := refusal(t, p, "alice", Flight)
	if got, want := le.Error(), "Reach limit of connections. Total: 10, User: 2, Current: 2, Arrow Flight SQL: 5 (current: 1)"; got != want {
		t.Errorf("flight refusal %q, want %q", got, want)
	}
	le = refusal(t, p, "alice", MySQL)
	if got, want := le.Error(), "Reach limit of connections. Total: 10, User: 2, Current: 2"; got != want {
		t.Errorf("mysql refusal %q, want %q", got, want)
	}
	mustRegister(t, p, "bob", MySQL)
	if s := p.Stats(); s.Open != 3 || s.FlightOpen != 1 || s.Refused != 2 || p.UserOpen("alice") != 2 {
		t.Errorf("after two refusals: %+v, alice %d; want 3 open, 1 flight, 2 refused, alice 2", s, p.UserOpen("alice"))
	}
}

// TestCurrentIsTheFrontendsCount: Current names the FE-wide count, not the
// user's, as registerConnection's return value does.
func TestCurrentIsTheFrontendsCount(t *testing.T) {
	p := newPool(t, Limits{MaxConnections: 10, UserMaxConnections: 1})
	mustRegister(t, p, "alice", MySQL)
	mustRegister(t, p, "bob", MySQL)
	mustRegister(t, p, "carol", MySQL)
	if le := refusal(t, p, "alice", MySQL); le.Current != 3 || le.User != 1 {
		t.Errorf("refusal %+v, want Current 3 (the FE's) and User 1", le)
	}
}

func TestThePoolsLimitBindsEveryUser(t *testing.T) {
	p := newPool(t, Limits{MaxConnections: 2, UserMaxConnections: 100})
	mustRegister(t, p, "alice", MySQL)
	mustRegister(t, p, "bob", Flight)
	for _, proto := range []Protocol{MySQL, Flight} {
		le := refusal(t, p, "carol", proto)
		// The Flight share (1) is below the limit (2), so a Flight refusal names it.
		want := "Reach limit of connections. Total: 2, User: 100, Current: 2"
		if proto == Flight {
			want += ", Arrow Flight SQL: 1 (current: 1)"
		}
		if le.Error() != want {
			t.Errorf("%s refusal %q, want %q", proto, le.Error(), want)
		}
	}
}

// TestTheFlightShareBindsOnlyFlight: past the Flight share a session is
// refused while MySQL connections are still admitted.
func TestTheFlightShareBindsOnlyFlight(t *testing.T) {
	p := newPool(t, Limits{MaxConnections: 10, FlightMaxConnections: 1})
	mustRegister(t, p, "alice", Flight)
	if le := refusal(t, p, "bob", Flight); le.Error() != "Reach limit of connections. Total: 10, User: 100, Current: 1, Arrow Flight SQL: 1 (current: 1)" {
		t.Errorf("refusal %q", le.Error())
	}
	mustRegister(t, p, "bob", MySQL)
}

// TestReleaseFreesTheSlotOnce: a released slot is free again, and a second
// release of the same connection changes nothing.
func TestReleaseFreesTheSlotOnce(t *testing.T) {
	p := newPool(t, Limits{MaxConnections: 10, FlightMaxConnections: 1, UserMaxConnections: 1})
	c := mustRegister(t, p, "alice", Flight)
	refusal(t, p, "alice", Flight)
	c.Release()
	c.Release()
	if s := p.Stats(); s.Open != 0 || s.FlightOpen != 0 || s.Peak != 1 || s.FlightPeak != 1 {
		t.Errorf("after release: %+v, want nothing open and peaks of 1", s)
	}
	mustRegister(t, p, "alice", Flight)
	if s := p.Stats(); s.Open != 1 || s.Peak != 1 {
		t.Errorf("after a second session: %+v", s)
	}
}

// TestSetUserMaxConnections raises and lowers one user's limit: lowering
// keeps the connections already open and refuses the next.
func TestSetUserMaxConnections(t *testing.T) {
	p := newPool(t, Limits{UserMaxConnections: 1})
	mustRegister(t, p, "alice", MySQL)
	refusal(t, p, "alice", MySQL)
	if err := p.SetUserMaxConnections("alice", 3); err != nil {
		t.Fatal(err)
	}
	a2 := mustRegister(t, p, "alice", Flight)
	mustRegister(t, p, "alice", MySQL)
	if le := refusal(t, p, "alice", MySQL); le.User != 3 {
		t.Errorf("refusal names User %d, want 3", le.User)
	}
	if err := p.SetUserMaxConnections("alice", 1); err != nil {
		t.Fatal(err)
	}
	if p.UserOpen("alice") != 3 {
		t.Errorf("lowering the limit closed connections: alice holds %d", p.UserOpen("alice"))
	}
	a2.Release()
	refusal(t, p, "alice", MySQL)
	if p.UserMaxConnections("bob") != 1 {
		t.Errorf("bob's limit changed with alice's")
	}
	for _, n := range []int64{0, -1, 10001} {
		err := p.SetUserMaxConnections("alice", n)
		if err == nil || err.Error() != "max_user_connections is not valid, must between 1 and 10000" {
			t.Errorf("SetUserMaxConnections(%d) = %v", n, err)
		}
	}
}

// TestExpireIdleEndsOnlyIdleConnections: wait_timeout ends a connection
// idle past it, not one running a command, and calls its end func.
func TestExpireIdleEndsOnlyIdleConnections(t *testing.T) {
	p := newPool(t, Limits{WaitTimeout: time.Minute})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	var ended []string
	reg := func(name string) *Conn {
		c, err := p.Register("alice", Flight, func() { ended = append(ended, name) })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	idle, busy, fresh := reg("idle"), reg("busy"), reg("fresh")
	_ = idle
	done := busy.Begin()
	now = now.Add(30 * time.Second)
	fresh.Begin()()
	now = now.Add(31 * time.Second)
	if n := p.ExpireIdle(now); n != 1 || len(ended) != 1 || ended[0] != "idle" {
		t.Fatalf("ended %d: %v, want only idle", n, ended)
	}
	done()
	now = now.Add(2 * time.Minute)
	p.ExpireIdle(now)
	if p.Stats().Open != 0 || len(ended) != 3 {
		t.Errorf("after every session idled out: %+v, ended %v", p.Stats(), ended)
	}
}

// TestStartEndsIdleConnections runs the timeout checker for real.
func TestStartEndsIdleConnections(t *testing.T) {
	p := newPool(t, Limits{WaitTimeout: 20 * time.Millisecond})
	p.Start()
	defer p.Close()
	ended := make(chan struct{})
	if _, err := p.Register("alice", MySQL, func() { close(ended) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection was not ended within 10s")
	}
	// The end func runs before the slot is released (expiry.go), so the
	// slot may still be taken for a moment after it returns.
	deadline := time.Now().Add(10 * time.Second)
	for p.Stats().Open != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("open %d 10s after expiry", p.Stats().Open)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestConcurrentRegistrationsNeverExceedTheLimit: the checks and the
// increments are one step.
func TestConcurrentRegistrationsNeverExceedTheLimit(t *testing.T) {
	p := newPool(t, Limits{MaxConnections: 1000, UserMaxConnections: 50})
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Register("alice", MySQL, nil); err == nil {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if admitted != 50 || p.Stats().Peak != 50 || p.Stats().Refused != 150 {
		t.Errorf("admitted %d, stats %+v; want 50 admitted, peak 50, 150 refused", admitted, p.Stats())
	}
}
