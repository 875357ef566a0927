package input

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// connFixture is a conn opened on the in-process simulator, as Connect
// opens it.
func connFixture(t *testing.T, tune func(*Config)) (*dorissim.Server, *conn) {
	t.Helper()
	srv := startSim(t, dorissim.Config{})
	conf := &Config{FENodes: []string{srv.HTTPAddr()}, Username: simUser, Password: simPassword, Retries: 1,
		ConnectTimeout: 2 * time.Second, ReadTimeout: 5 * time.Second}
	log, _ := captureLogger(t)
	return srv, openSimConn(t, conf, tune, log)
}

// handshakes is how many Flight sessions the FE opened: one handshake each.
func handshakes(srv *dorissim.Server) int64 { return srv.Stats().FEFlight["Handshake"] }

func (c *conn) idleCount() int {
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	return len(c.pool.idle)
}

// Sessions are reused and bounded: Connect's first session serves the
// first reader, no more than max_flight_sessions are ever open on the FE
// (a reader past them waits), healthy sessions go back to the pool, a
// failed one is closed and never handed out again, and after close nothing
// is kept.
func TestConnPoolsSessions(t *testing.T) {
	const limit = 5
	srv, c := connFixture(t, func(conf *Config) { conf.MaxFlightSessions = limit })
	ctx := testCtx(t)
	if n := handshakes(srv); n != 1 {
		t.Fatalf("Connect opened %d sessions, want 1 (to check the port and password)", n)
	}
	take := func(n int) []*flight.Client {
		t.Helper()
		out := make([]*flight.Client, n)
		for i := range out {
			fc, err := c.session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = fc
		}
		return out
	}
	sessions := take(limit)
	if n := handshakes(srv); n != limit {
		t.Fatalf("%d sessions opened for %d readers, want Connect's reused", n, limit)
	}
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	if _, err := c.session(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a reader past max_flight_sessions got %v, want it to wait", err)
	}
	cancel()
	if st := srv.Stats(); st.FlightSessionsPeak != limit || handshakes(srv) != limit {
		t.Fatalf("the FE saw %d Flight sessions at once (%d handshakes), want max_flight_sessions %d", st.FlightSessionsPeak, handshakes(srv), limit)
	}
	for _, fc := range sessions {
		c.release(fc, true)
	}
	if n := c.idleCount(); n != limit {
		t.Fatalf("%d idle sessions kept, want %d", n, limit)
	}
	again := take(limit)
	if n := handshakes(srv); n != limit {
		t.Fatalf("taking the idle sessions opened new ones: %d in all", n)
	}
	failed := again[0]
	c.release(failed, false)
	if n := c.idleCount(); n != 0 {
		t.Fatalf("a failed session went back to the pool (%d idle)", n)
	}
	if fc := take(1)[0]; fc == failed {
		t.Fatal("a failed session was handed out again")
	} else {
		again[0] = fc
	}
	last := again[len(again)-1]
	for _, fc := range again[:len(again)-1] {
		c.release(fc, true)
	}
	c.close()
	if n := c.idleCount(); n != 0 {
		t.Fatalf("%d idle sessions after close", n)
	}
	c.release(last, true)
	if n := c.idleCount(); n != 0 {
		t.Fatalf("a session released after close was kept")
	}
	c.release(nil, true) // a reader whose dial failed
	if _, err := c.session(ctx); !errors.Is(err, errPoolClosed) {
		t.Fatalf("a session after close: %v, want errPoolClosed", err)
	}
}

// The Flight SQL port is discovered once with show frontends when not
// configured; a configured one is used as it is; a failed discovery says
// what it tried.
func TestConnFlightPort(t *testing.T) {
	srv, c := connFixture(t, nil)
	ctx := testCtx(t)
	_, portText, _ := net.SplitHostPort(srv.FlightAddr())
	want, _ := strconv.Atoi(portText)
	// Connect discovered it already: asking again costs no FE request.
	before := srv.Stats().FERequests()
	if p, err := c.flightPort(ctx); err != nil || p != want {
		t.Fatalf("discovered port %d, %v; want %d", p, err, want)
	}
	if n := srv.Stats().FERequests() - before; n != 0 {
		t.Fatalf("the port was discovered again: %d FE requests", n)
	}

	configured := &conn{conf: &Config{FlightSQLPort: 4242}, rest: c.rest}
	if p, err := configured.flightPort(ctx); err != nil || p != 4242 {
		t.Fatalf("configured port: %d, %v; want 4242", p, err)
	}
	if n := srv.Stats().FERequests() - before; n != 0 {
		t.Fatalf("a configured port was discovered: %d FE requests", n)
	}

	down, err := restClient(&Config{ConnectTimeout: time.Second, ReadTimeout: time.Second}, c.log, []string{"127.0.0.1:1"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	lost := &conn{conf: &Config{ConnectTimeout: time.Second}, log: c.log, rest: down}
	if _, err := lost.dialFlight(ctx); err == nil || !strings.Contains(err.Error(), "discovering the Flight SQL port with show frontends") {
		t.Fatalf("dial with the FE down: %v, want the failed discovery named", err)
	}
}

// Connect fails when the first session cannot open: a wrong flight_sql_port.
func TestOpenConnChecksTheFlightPort(t *testing.T) {
	srv := startSim(t, dorissim.Config{})
	log, _ := captureLogger(t)
	_, httpPort, _ := net.SplitHostPort(srv.HTTPAddr())
	port, _ := strconv.Atoi(httpPort) // an open port that speaks no Flight
	conf := &Config{FENodes: []string{srv.HTTPAddr()}, Username: simUser, Password: simPassword, Retries: 1,
		ConnectTimeout: time.Second, ReadTimeout: time.Second, FlightSQLPort: port}
	if c, err := openConn(testCtx(t), conf, log); err == nil {
		c.close()
		t.Fatal("Connect succeeded with flight_sql_port set to the HTTP port")
	}
}

func TestSessionSetupLimit(t *testing.T) {
	if got := sessionSetupLimit(2 * time.Second); got != 8*time.Second {
		t.Errorf("limit for a 2s connect: %s, want 8s", got)
	}
	if got := sessionSetupLimit(0); got != 4*flight.DefaultConnectTimeout {
		t.Errorf("limit without connect_timeout: %s, want 4 x %s", got, flight.DefaultConnectTimeout)
	}
}
