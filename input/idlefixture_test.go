package input

// The idle-table rule's fixture: the window chain of a coordinator over
// the in-process simulator, polled by the test at the Doris times it sets,
// with hooks that commit between the reads of one poll.

import (
	"context"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

type idleFixture struct {
	e     *simEnv
	clock *simClock
	co    *coordinator
	ch    *chain
	sink  *recordingSink
	keys  []string
	// Run once in the next poll: afterEnd right after the window end was
	// read from /api/tso (before the versions), beforeFence between the
	// versions and the TSO read that fences them.
	afterEnd, beforeFence func()
}

// idleClock is the chain's Doris clock: the simulator's /api/tso, then
// the test's afterEnd hook.
type idleClock struct{ f *idleFixture }

func (c idleClock) currentBound(ctx context.Context) (windowplan.Bound, error) {
	b, err := c.f.e.c.currentBound(ctx)
	if h := c.f.afterEnd; h != nil {
		c.f.afterEnd = nil
		h()
	}
	return b, err
}

// newIdleFixture starts a simulator at 10:00:00 with database d and stmts
// run, and a chain from 10:00:00 following d.<name> for every table named,
// with skip_idle_tables on; tune adjusts the configuration.
func newIdleFixture(t *testing.T, tune func(*Config), stmts []string, tables ...string) *idleFixture {
	t.Helper()
	f := &idleFixture{clock: &simClock{now: simAt(t, "10:00:00")}}
	conf := &Config{ScanMode: "latest", PollInterval: time.Second, SkipIdleTables: true, OnExpired: "fail",
		CheckpointKey: "k", CheckpointCache: cpCache}
	if tune != nil {
		tune(conf)
	}
	f.e = newSimEnv(t, dorissim.Config{Clock: f.clock.Now}, conf, append([]string{"CREATE DATABASE d"}, stmts...)...)
	st := checkpoint.New()
	st.StartChain(ckb("2026-12-01 10:00:00"))
	for _, name := range tables {
		f.keys = append(f.keys, "d."+name)
		st.AddTable("d."+name, false, checkpoint.Bound{}, 1)
	}
	f.restart(t, st)
	return f
}

// restart builds a new coordinator, with a rule that has seen nothing,
// from st, as a restart of the input from its checkpoint does.
func (f *idleFixture) restart(t *testing.T, st *checkpoint.State) {
	t.Helper()
	f.co, f.sink = testCoordinator(t, f.e, st, idleClock{f}, f.keys...)
	f.co.resave = func(context.Context) error { return nil }
	if iw := f.co.idle; iw != nil {
		fence := iw.fence
		iw.fence = func(ctx context.Context) (int64, error) {
			if h := f.beforeFence; h != nil {
				f.beforeFence = nil
				h()
			}
			return fence(ctx)
		}
	}
	f.ch = &chain{co: f.co}
}

// simAtMs is hh:mm:ss plus ms on the fixture's day.
func simAtMs(t *testing.T, hms string, ms int) time.Time {
	return simAt(t, hms).Add(time.Duration(ms) * time.Millisecond)
}

// commit runs stmts as one transaction with the Doris clock at when.
func (f *idleFixture) commit(t *testing.T, when time.Time, stmts ...string) {
	t.Helper()
	f.clock.set(when)
	if err := f.e.srv.ExecTx(testCtx(t), stmts...); err != nil {
		t.Fatalf("commit at %s: %v", when.Format("15:04:05.000"), err)
	}
}

// poll runs one poll of the chain with the Doris clock at when and
// returns how many @incr queries it ran.
func (f *idleFixture) poll(t *testing.T, when time.Time) int64 {
	t.Helper()
	n, err := f.tryPoll(t, when)
	if err != nil {
		t.Fatalf("poll at %s: %v", when.Format("15:04:05.000"), err)
	}
	return n
}

func (f *idleFixture) tryPoll(t *testing.T, when time.Time) (int64, error) {
	t.Helper()
	f.clock.set(when)
	before := f.e.srv.Stats().FEIncrQueries
	f.ch.lastTick = time.Time{} // no wait for the next tick: the test sets the time
	err := f.ch.next(testCtx(t))
	return f.e.srv.Stats().FEIncrQueries - before, err
}

// polls polls at each whole second from (and including) first to last
// and returns the @incr queries of each.
func (f *idleFixture) polls(t *testing.T, first, last string) []int64 {
	t.Helper()
	var out []int64
	for s := simAt(t, first); !s.After(simAt(t, last)); s = s.Add(time.Second) {
		out = append(out, f.poll(t, s))
	}
	return out
}

// rows is every emitted row's body prefixed with its table, in order; it
// fails the test on rows out of (TSO, table, LSN, OP) order or repeated.
func (f *idleFixture) rows(t *testing.T) []string {
	t.Helper()
	var rs []row
	for _, b := range f.sink.batches {
		for _, m := range b {
			rs = append(rs, messageRow(t, m))
		}
	}
	checkOrder(t, rs)
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.pos.Table + " " + r.body
	}
	return out
}

// chainStart is where the emitted checkpoint has the chain now.
func (f *idleFixture) chainStart(t *testing.T) string {
	t.Helper()
	var start string
	f.co.em.view(func(st *checkpoint.State) { start = st.Stream.Start.String() })
	return start
}
