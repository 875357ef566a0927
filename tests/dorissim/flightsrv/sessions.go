package flightsrv

import (
	"errors"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/connpool"
)

// noSessionText is Doris's answer to a bearer token no session is open
// under (FlightSessionsInConnectPool.getConnectContext), without the token
// id and the fe.log hint: the simulator has neither.
const noSessionText = "invalid bearer token: no Arrow Flight SQL session is open under it on this frontend. " +
	"The session may have been closed (CloseSession), killed (KILL CONNECTION) or ended by wait_timeout, " +
	"may have been opened on another frontend, or this frontend may have restarted since; " +
	"reconnect to open a new session"

// tokenEntry is one Flight session: a bearer token is the name it is
// registered in the connection pool under, and nothing else.
type tokenEntry struct {
	token string
	user  string
	sess  Session
	conn  *connpool.Conn
	mu    sync.Mutex // serializes statements of one session
}

// tokens holds the open sessions by bearer token. A session lives until
// CloseSession, the pool's wait_timeout, or Close; none is ever evicted to
// make room for another (Doris state S5, docs/doris-connection-limits.md).
type tokens struct {
	mu     sync.Mutex
	engine Engine
	pool   *connpool.Pool
	byTok  map[string]*tokenEntry
}

func newTokens(e Engine, pool *connpool.Pool) *tokens {
	return &tokens{engine: e, pool: pool, byTok: map[string]*tokenEntry{}}
}

// open registers a session of user in the pool and issues its token. A
// refused session leaves nothing behind: no token, no session, no slot
// (FlightSessionsInConnectPool.openSession).
func (t *tokens) open(user string) (*tokenEntry, error) {
	tok := newID()
	// Holding t.mu across the registration keeps the pool's timeout checker
	// from ending the session before it is in byTok: its end func waits here.
	t.mu.Lock()
	defer t.mu.Unlock()
	conn, err := t.pool.Register(user, connpool.Flight, func() { t.end(tok) })
	if err != nil {
		var le *connpool.LimitError
		if errors.As(err, &le) {
			return nil, status.Error(codes.ResourceExhausted, le.Error())
		}
		return nil, status.Errorf(codes.Internal, "open arrow flight sql session: %v", err)
	}
	e := &tokenEntry{token: tok, user: user, sess: t.engine.NewSession(user), conn: conn}
	t.byTok[tok] = e
	return e, nil
}

func (t *tokens) lookup(tok string) *tokenEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byTok[tok]
}

// end closes the session named tok, if it is still open, and gives its
// slot back: CloseSession, wait_timeout and Close all end here. A statement
// still running on the session finishes first (the session serializes
// them), as no client will take its result anyway.
func (t *tokens) end(tok string) {
	t.mu.Lock()
	e := t.byTok[tok]
	delete(t.byTok, tok)
	t.mu.Unlock()
	if e == nil {
		return
	}
	e.conn.Release()
	e.sess.Close()
}

func (t *tokens) closeAll() {
	t.mu.Lock()
	all := make([]string, 0, len(t.byTok))
	for tok := range t.byTok {
		all = append(all, tok)
	}
	t.mu.Unlock()
	for _, tok := range all {
		t.end(tok)
	}
}
