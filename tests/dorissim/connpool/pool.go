// Package connpool is the simulated FE's one connection pool: MySQL
// connections and Arrow Flight SQL sessions are admitted against the same
// limits, as Doris's ConnectPoolMgr admits them since apache/doris#68101 and
// #68266 (docs/doris-connection-limits.md A.1, state S5):
//
//   - qe_max_connection bounds every connection of the FE (default 1024);
//   - arrow_flight_max_connections bounds the Flight sessions within it
//     (default half of qe_max_connection, never above it);
//   - the user property max_user_connections bounds one user's connections
//     of both protocols together (default 100), keyed by the user name
//     without host.
//
// A connection that does not fit is refused, never one that fits evicted.
// A slot is freed only by its connection's end: a MySQL connection closing,
// a Flight session's CloseSession, or wait_timeout (see ExpireIdle).
package connpool

import (
	"fmt"
	"sync"
	"time"
)

// Doris's defaults and bounds.
const (
	// DefaultMaxConnections is qe_max_connection (fe.conf, not mutable).
	DefaultMaxConnections = 1024
	// DefaultUserMaxConnections is max_user_connections
	// (CommonUserProperties.maxConn).
	DefaultUserMaxConnections = 100
	// MinUserMaxConnections and MaxUserMaxConnections bound SET PROPERTY
	// 'max_user_connections' (UserProperty.update).
	MinUserMaxConnections = 1
	MaxUserMaxConnections = 10000
	// DefaultWaitTimeout is the session variable wait_timeout (28800 s): a
	// connection idle longer is ended by the FE's timeout checker.
	DefaultWaitTimeout = 8 * time.Hour
)

// The MySQL error a refused connection gets (ErrorCode.ERR_TOO_MANY_USER_CONNECTIONS).
const (
	ErrTooManyUserConnections  = 1203
	SQLStateTooManyConnections = "42000"
)

// Protocol is what a connection speaks.
type Protocol int

// Protocols of the pool.
const (
	MySQL Protocol = iota + 1
	Flight
)

func (p Protocol) String() string {
	switch p {
	case MySQL:
		return "mysql"
	case Flight:
		return "arrow flight sql"
	}
	return fmt.Sprintf("protocol(%d)", int(p))
}

// Limits configures a pool; zero values take Doris's defaults.
type Limits struct {
	// MaxConnections is qe_max_connection.
	MaxConnections int
	// FlightMaxConnections is arrow_flight_max_connections; zero or
	// negative is half of MaxConnections, and it never exceeds
	// MaxConnections (ConnectPoolMgr.effectiveFlightMaxConnections).
	FlightMaxConnections int
	// UserMaxConnections is max_user_connections of a user no SET PROPERTY
	// has changed.
	UserMaxConnections int
	// WaitTimeout ends a connection idle for longer.
	WaitTimeout time.Duration
}

// Effective is l with Doris's defaults filled in and the Flight share
// capped at the pool's limit.
func (l Limits) Effective() Limits {
	if l.MaxConnections <= 0 {
		l.MaxConnections = DefaultMaxConnections
	}
	if l.FlightMaxConnections <= 0 {
		l.FlightMaxConnections = max(1, l.MaxConnections/2)
	}
	l.FlightMaxConnections = min(l.FlightMaxConnections, l.MaxConnections)
	if l.UserMaxConnections <= 0 {
		l.UserMaxConnections = DefaultUserMaxConnections
	}
	if l.WaitTimeout <= 0 {
		l.WaitTimeout = DefaultWaitTimeout
	}
	return l
}

// Pool counts the FE's open connections and admits new ones.
type Pool struct {
	limits Limits
	now    func() time.Time

	mu         sync.Mutex
	open       int
	flight     int
	peak       int
	flightPeak int
	refused    int64
	byUser     map[string]int
	userMax    map[string]int
	conns      map[uint64]*Conn
	nextID     uint64
	running    bool // Start has run

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// New builds a pool with l's effective limits. A user's limit outside
// 1..10000 is an error, as SET PROPERTY would answer it.
func New(l Limits) (*Pool, error) {
	l = l.Effective()
	if err := checkUserMax(int64(l.UserMaxConnections)); err != nil {
		return nil, err
	}
	return &Pool{
		limits:  l,
		now:     time.Now,
		byUser:  map[string]int{},
		userMax: map[string]int{},
		conns:   map[uint64]*Conn{},
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}, nil
}

// Limits are the pool's effective limits.
func (p *Pool) Limits() Limits { return p.limits }

// Conn is one admitted connection: its slot is held until Release.
type Conn struct {
	pool  *Pool
	id    uint64
	user  string
	proto Protocol
	end   func()

	// guarded by pool.mu
	released   bool
	ending     bool // ExpireIdle is ending it
	busy       int
	lastActive time.Time
}

// ID is the connection's number in the pool, unique for the pool's life.
func (c *Conn) ID() uint64 { return c.id }

// User is the user the connection counts against.
func (c *Conn) User() string { return c.user }

// Register admits a connection of user over proto, checking the pool's
// limit, then the Flight share, then the user's limit, in
// ConnectPoolMgr.registerConnection's order. end is what ExpireIdle calls
// to end the connection on the protocol's side (close the socket, drop the
// bearer token); it must not block on the pool. A refusal is a
// *LimitError and changes no count.
func (p *Pool) Register(user string, proto Protocol, end func()) (*Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	userMax := p.userMaxLocked(user)
	refuse := func() error {
		p.refused++
		e := &LimitError{Protocol: proto, Total: p.limits.MaxConnections, User: userMax, Current: p.open,
			FlightQuota: p.limits.FlightMaxConnections, FlightCurrent: p.flight}
		return e
	}
	if p.open+1 > p.limits.MaxConnections {
		return nil, refuse()
	}
	if proto == Flight && p.flight+1 > p.limits.FlightMaxConnections {
		return nil, refuse()
	}
	if p.byUser[user]+1 > userMax {
		return nil, refuse()
	}
	p.nextID++
	c := &Conn{pool: p, id: p.nextID, user: user, proto: proto, end: end, lastActive: p.now()}
	p.conns[c.id] = c
	p.byUser[user]++
	p.open++
	p.peak = max(p.peak, p.open)
	if proto == Flight {
		p.flight++
		p.flightPeak = max(p.flightPeak, p.flight)
	}
	return c, nil
}

// Release gives the connection's slot back. Only the first call counts, so
// every teardown path may call it (ConnectPoolMgr.unregisterConnection).
func (c *Conn) Release() {
	p := c.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	p.releaseLocked(c)
}

func (p *Pool) releaseLocked(c *Conn) bool {
	if c.released {
		return false
	}
	c.released = true
	delete(p.conns, c.id)
	p.byUser[c.user]--
	if p.byUser[c.user] == 0 {
		delete(p.byUser, c.user)
	}
	p.open--
	if c.proto == Flight {
		p.flight--
	}
	return true
}

// Begin marks the connection as running a command until the returned
// func is called: a connection is idle (COM_SLEEP, the only state
// wait_timeout ends) only between commands.
func (c *Conn) Begin() (end func()) {
	p := c.pool
	p.mu.Lock()
	c.busy++
	c.lastActive = p.now()
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		c.busy--
		c.lastActive = p.now()
		p.mu.Unlock()
	}
}

// SetUserMaxConnections is SET PROPERTY FOR user 'max_user_connections' = n:
// it bounds the user's next connections; those already open stay.
func (p *Pool) SetUserMaxConnections(user string, n int64) error {
	if err := checkUserMax(n); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.userMax[user] = int(n)
	return nil
}

// UserMaxConnections is user's max_user_connections.
func (p *Pool) UserMaxConnections(user string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.userMaxLocked(user)
}

func (p *Pool) userMaxLocked(user string) int {
	if n, ok := p.userMax[user]; ok {
		return n
	}
	return p.limits.UserMaxConnections
}

func checkUserMax(n int64) error {
	if n < MinUserMaxConnections || n > MaxUserMaxConnections {
		return fmt.Errorf("max_user_connections is not valid, must between %d and %d", MinUserMaxConnections, MaxUserMaxConnections)
	}
	return nil
}

// Stats is what the pool holds now and has held at most.
type Stats struct {
	Open       int   // connections of both protocols open now
	Peak       int   // most open at once since the pool started
	FlightOpen int   // of Open, Arrow Flight SQL sessions
	FlightPeak int   // most Flight sessions open at once
	Refused    int64 // connections refused by a limit
}

// Stats returns the pool's counts.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Open: p.open, Peak: p.peak, FlightOpen: p.flight, FlightPeak: p.flightPeak, Refused: p.refused}
}

// UserOpen is how many connections user holds now.
func (p *Pool) UserOpen(user string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byUser[user]
}
