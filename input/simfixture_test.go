package input

// What the simulator fixtures of this package share: a clock the test
// moves, starting the in-process simulator, and opening the real conn on
// it. One copy, so that every fixture starts and connects the same way.

import (
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// simClock is the simulated Doris's clock, which the test moves so that
// each commit gets the TSO it names and the binlog windows around the
// commits are in the past.
type simClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *simClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// startSim starts a simulator with sc as the fixtures' user, closed when
// the test ends, and runs stmts on it.
func startSim(t *testing.T, sc dorissim.Config, stmts ...string) *dorissim.Server {
	t.Helper()
	sc.User, sc.Password = simUser, simPassword
	srv, err := dorissim.Start(testCtx(t), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	simExec(t, srv, stmts...)
	return srv
}

// simExec runs stmts on srv in order, failing the test at the first error.
func simExec(t *testing.T, srv *dorissim.Server, stmts ...string) {
	t.Helper()
	ctx := testCtx(t)
	for _, s := range stmts {
		if err := srv.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// openSimConn applies tune (when set) to conf and opens the real conn with
// it, as Connect does; the conn is closed when the test ends.
func openSimConn(t *testing.T, conf *Config, tune func(*Config), log *service.Logger) *conn {
	t.Helper()
	if tune != nil {
		tune(conf)
	}
	c, err := openConn(testCtx(t), conf, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}
