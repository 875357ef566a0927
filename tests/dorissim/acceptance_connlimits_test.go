package dorissim

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Acceptance of the FE's connection limits (docs/contracts.md §4, from
// docs/doris-connection-limits.md): max_user_connections and
// qe_max_connection bound MySQL connections and Arrow Flight SQL sessions
// together; a MySQL connection over a limit is refused with error 1203
// after authenticating, a Flight session at its Handshake with
// RESOURCE_EXHAUSTED and no token.

// limitsClient opens MySQL connections and Flight sessions as root against
// one simulator, each a connection of the FE's pool.
type limitsClient struct {
	t      *testing.T
	s      *Server
	db     *sql.DB
	flight *flightsql.Client
}

func newLimitsClient(t *testing.T, s *Server) *limitsClient {
	t.Helper()
	db, err := sql.Open("mysql", "root:pw@tcp("+s.MySQLAddr()+")/")
	if err != nil {
		t.Fatal(err)
	}
	// Every db.Conn is a connection of its own, and a closed one is gone.
	db.SetMaxIdleConns(0)
	t.Cleanup(func() { db.Close() })
	fc, err := flightsql.NewClient(s.FlightAddr(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fc.Close() })
	return &limitsClient{t: t, s: s, db: db, flight: fc}
}

// mysql opens one MySQL connection and runs a statement on it, so that a
// refusal surfaces here.
func (c *limitsClient) mysql() (*sql.Conn, error) {
	conn, err := c.db.Conn(testCtx(c.t))
	if err != nil {
		return nil, err
	}
	if err := conn.PingContext(testCtx(c.t)); err != nil {
		conn.Close()
		return nil, err
	}
	c.t.Cleanup(func() { conn.Close() })
	return conn, nil
}

func (c *limitsClient) mustMySQL() *sql.Conn {
	c.t.Helper()
	conn, err := c.mysql()
	if err != nil {
		c.t.Fatalf("mysql connection: %v", err)
	}
	return conn
}

// session runs a Basic Handshake, which opens a Flight session, and
// returns the context that carries its bearer token.
func (c *limitsClient) session() (context.Context, error) {
	return c.flight.Client.AuthenticateBasicToken(testCtx(c.t), "root", "pw")
}

func (c *limitsClient) mustSession() context.Context {
	c.t.Helper()
	ctx, err := c.session()
	if err != nil {
		c.t.Fatalf("flight handshake: %v", err)
	}
	return ctx
}

func (c *limitsClient) closeSession(ctx context.Context) {
	c.t.Helper()
	res, err := c.flight.CloseSession(ctx, &flight.CloseSessionRequest{})
	if err != nil || res.GetStatus() != flight.CloseSessionResultClosed {
		c.t.Fatalf("CloseSession: %v, %v", res, err)
	}
}

// waitOpen waits until the FE's pool holds n connections: a MySQL
// connection's slot is given back when the server sees the socket close,
// after the client's Close returned.
func (c *limitsClient) waitOpen(n int64) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.s.Stats().SessionsOpen != n {
		if time.Now().After(deadline) {
			c.t.Fatalf("the pool holds %d connections after 20s, want %d", c.s.Stats().SessionsOpen, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantMySQLRefusal(t *testing.T, err error, text string) {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("got %v, want MySQL error 1203", err)
	}
	if me.Number != 1203 || string(me.SQLState[:]) != "42000" || me.Message != text {
		t.Fatalf("got error %d (%s) %q, want 1203 (42000) %q", me.Number, me.SQLState[:], me.Message, text)
	}
}

func wantFlightRefusal(t *testing.T, ctx context.Context, err error, text string) {
	t.Helper()
	if status.Code(err) != codes.ResourceExhausted || status.Convert(err).Message() != text {
		t.Fatalf("got %v, want RESOURCE_EXHAUSTED %q", err, text)
	}
	// No token is issued with a refusal.
	if md, _ := metadata.FromOutgoingContext(ctx); len(md.Get("authorization")) > 0 {
		t.Fatalf("a refused handshake issued %v", md.Get("authorization"))
	}
}

// TestMaxUserConnectionsOnMySQL: the user's 101st MySQL connection
// authenticates and is then answered error 1203 with Doris's text; closing
// one connection makes room for the next.
func TestMaxUserConnectionsOnMySQL(t *testing.T) {
	s := startSim(t, Config{})
	c := newLimitsClient(t, s)
	conns := make([]*sql.Conn, 100)
	for i := range conns {
		conns[i] = c.mustMySQL()
	}
	_, err := c.mysql()
	wantMySQLRefusal(t, err, "Reach limit of connections. Total: 1024, User: 100, Current: 100")
	// A wrong password is still refused as such: authentication comes first.
	bad, _ := sql.Open("mysql", "root:wrong@tcp("+s.MySQLAddr()+")/")
	defer bad.Close()
	var me *mysql.MySQLError
	if err := bad.PingContext(testCtx(t)); !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("wrong password at the limit: %v, want 1045", err)
	}
	conns[0].Close()
	c.waitOpen(99)
	c.mustMySQL()
	if st := s.Stats(); st.SessionsOpen != 100 || st.SessionsPeak != 100 || st.SessionsRefused != 1 {
		t.Errorf("stats open %d peak %d refused %d, want 100, 100, 1", st.SessionsOpen, st.SessionsPeak, st.SessionsRefused)
	}
}

// TestMaxUserConnectionsOnFlight: the user's 101st Flight session is
// refused at its Handshake; CloseSession ends a session, its token with
// it, and makes room for the next.
func TestMaxUserConnectionsOnFlight(t *testing.T) {
	s := startSim(t, Config{})
	c := newLimitsClient(t, s)
	sessions := make([]context.Context, 100)
	for i := range sessions {
		sessions[i] = c.mustSession()
	}
	ctx, err := c.session()
	wantFlightRefusal(t, ctx, err, "Reach limit of connections. Total: 1024, User: 100, Current: 100, Arrow Flight SQL: 512 (current: 100)")
	// The sessions already open are not evicted by the refusal.
	for _, i := range []int{0, 99} {
		if _, err := c.flight.Execute(sessions[i], "SELECT 1"); err != nil {
			t.Fatalf("session %d after the refusal: %v", i, err)
		}
	}
	c.closeSession(sessions[0])
	if _, err := c.flight.Execute(sessions[0], "SELECT 1"); status.Code(err) != codes.Unauthenticated ||
		!strings.Contains(err.Error(), "invalid bearer token: no Arrow Flight SQL session is open under it") {
		t.Fatalf("the closed session's token: %v, want UNAUTHENTICATED", err)
	}
	c.mustSession()
	st := s.Stats()
	if st.SessionsOpen != 100 || st.FlightSessionsOpen != 100 || st.FlightSessionsPeak != 100 || st.SessionsRefused != 1 {
		t.Errorf("stats %+v, want 100 open Flight sessions at a peak of 100 and one refusal", st)
	}
}

// TestMySQLAndFlightCountTogether: 60 MySQL connections and 40 Flight
// sessions fill the user's 100; both protocols are then refused, and a
// slot either gives back serves the other.
func TestMySQLAndFlightCountTogether(t *testing.T) {
	s := startSim(t, Config{})
	c := newLimitsClient(t, s)
	var conns []*sql.Conn
	for range 60 {
		conns = append(conns, c.mustMySQL())
	}
	var sessions []context.Context
	for range 40 {
		sessions = append(sessions, c.mustSession())
	}
	_, err := c.mysql()
	wantMySQLRefusal(t, err, "Reach limit of connections. Total: 1024, User: 100, Current: 100")
	ctx, err := c.session()
	wantFlightRefusal(t, ctx, err, "Reach limit of connections. Total: 1024, User: 100, Current: 100, Arrow Flight SQL: 512 (current: 40)")
	conns[0].Close()
	c.waitOpen(99)
	sessions = append(sessions, c.mustSession())
	c.closeSession(sessions[0])
	c.mustMySQL()
	if st := s.Stats(); st.SessionsOpen != 100 || st.FlightSessionsOpen != 40 || st.SessionsPeak != 100 {
		t.Errorf("stats %+v, want 100 open of which 40 Flight", st)
	}
}

// TestSetPropertyMaxUserConnections raises and lowers the limit through
// the MySQL protocol, with Doris's syntax and error texts.
func TestSetPropertyMaxUserConnections(t *testing.T) {
	s := startSim(t, Config{})
	c := newLimitsClient(t, s)
	admin := c.mustMySQL()
	exec := func(stmt string) error {
		_, err := admin.ExecContext(testCtx(t), stmt)
		return err
	}
	if err := exec("SET PROPERTY FOR 'root' 'max_user_connections' = '3'"); err != nil {
		t.Fatal(err)
	}
	c.mustMySQL()
	c.mustSession()
	_, err := c.mysql()
	wantMySQLRefusal(t, err, "Reach limit of connections. Total: 1024, User: 3, Current: 3")
	ctx, err := c.session()
	wantFlightRefusal(t, ctx, err, "Reach limit of connections. Total: 1024, User: 3, Current: 3, Arrow Flight SQL: 512 (current: 1)")

	// Raised without FOR: the current user's property.
	if err := exec("set property 'max_user_connections' = 5"); err != nil {
		t.Fatal(err)
	}
	c.mustSession()
	c.mustMySQL()
	_, err = c.mysql()
	wantMySQLRefusal(t, err, "Reach limit of connections. Total: 1024, User: 5, Current: 5")

	// Lowered below what is open: the open connections stay, new ones wait.
	if err := exec("SET PROPERTY FOR 'root' 'max_user_connections' = '2'"); err != nil {
		t.Fatal(err)
	}
	if err := admin.PingContext(testCtx(t)); err != nil {
		t.Fatalf("an open connection after lowering the limit: %v", err)
	}
	ctx, err = c.session()
	wantFlightRefusal(t, ctx, err, "Reach limit of connections. Total: 1024, User: 2, Current: 5, Arrow Flight SQL: 512 (current: 2)")

	for stmt, want := range map[string]string{
		"SET PROPERTY FOR 'root' 'max_user_connections' = '0'":     "max_user_connections is not valid, must between 1 and 10000",
		"SET PROPERTY FOR 'root' 'max_user_connections' = '10001'": "max_user_connections is not valid, must between 1 and 10000",
		"SET PROPERTY FOR 'root' 'max_user_connections' = 'many'":  "max_user_connections is not number",
		"SET PROPERTY FOR 'root' 'max_connections' = '5'":          "Unknown property key: max_connections",
		"SET PROPERTY FOR 'nobody' 'max_user_connections' = '5'":   "Unknown user(nobody)",
	} {
		err := exec(stmt)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Message != "errCode = 2, detailMessage = "+want {
			t.Errorf("%s: got %v, want %q", stmt, err, want)
		}
	}
	// A refused statement changed nothing: still 2.
	if n := s.pool.UserMaxConnections("root"); n != 2 {
		t.Errorf("max_user_connections is %d after refused statements, want 2", n)
	}
}

// TestQEMaxConnectionBindsTheFrontend: qe_max_connection counts every
// user's connections of both protocols, and the Flight share (half of it)
// refuses Flight sessions while MySQL connections still fit.
func TestQEMaxConnectionBindsTheFrontend(t *testing.T) {
	s := startSim(t, Config{QEMaxConnection: 6})
	c := newLimitsClient(t, s)
	var sessions []context.Context
	for range 3 {
		sessions = append(sessions, c.mustSession())
	}
	ctx, err := c.session()
	wantFlightRefusal(t, ctx, err, "Reach limit of connections. Total: 6, User: 100, Current: 3, Arrow Flight SQL: 3 (current: 3)")
	for range 3 {
		c.mustMySQL()
	}
	_, err = c.mysql()
	wantMySQLRefusal(t, err, "Reach limit of connections. Total: 6, User: 100, Current: 6")
	c.closeSession(sessions[0])
	c.mustMySQL()
	ctx, err = c.session()
	wantFlightRefusal(t, ctx, err, "Reach limit of connections. Total: 6, User: 100, Current: 6, Arrow Flight SQL: 3 (current: 2)")

	// Over HTTP, as a benchmark reads it.
	code, body := httpDo(t, s, "GET", "/api/_sim/stats", "", nil)
	var env struct {
		Data map[string]any `json:"data"`
	}
	if code != 200 || json.Unmarshal(body, &env) != nil {
		t.Fatalf("stats: %d %s", code, body)
	}
	for k, want := range map[string]float64{"sessions_open": 6, "sessions_peak": 6, "flight_sessions_open": 2, "flight_sessions_peak": 3, "sessions_refused": 3} {
		if env.Data[k] != want {
			t.Errorf("/api/_sim/stats %s = %v, want %v", k, env.Data[k], want)
		}
	}
}

// TestWaitTimeoutEndsIdleConnections: a Flight session and a MySQL
// connection idle past wait_timeout are ended and their slots given back;
// the session's token is then unknown.
func TestWaitTimeoutEndsIdleConnections(t *testing.T) {
	s := startSim(t, Config{WaitTimeout: 300 * time.Millisecond, MaxUserConnections: 2})
	c := newLimitsClient(t, s)
	ctx := c.mustSession()
	conn := c.mustMySQL()
	c.waitOpen(0)
	if _, err := c.flight.Execute(ctx, "SELECT 1"); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("an idled-out session's token: %v, want UNAUTHENTICATED", err)
	}
	if err := conn.PingContext(testCtx(t)); err == nil {
		t.Fatal("an idled-out MySQL connection still answers")
	}
	c.mustSession()
	c.mustMySQL()
}

func TestConfigRejectsAnInvalidUserLimit(t *testing.T) {
	_, err := Start(testCtx(t), Config{MaxUserConnections: 10001})
	if err == nil || !strings.Contains(err.Error(), "must between 1 and 10000") {
		t.Fatalf("Start with MaxUserConnections 10001: %v", err)
	}
}
