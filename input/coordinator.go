package input

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// coordinator runs the per-table phases of one run: snapshots (several
// tables at once), catch-ups of tables that joined late, and the window
// chain that all streaming tables share. Every change of a table's phase
// travels with the batches through the emitter, so the committed checkpoint
// is always a consistent picture of the whole input.
type coordinator struct {
	runEnv
	cat   *catalog
	snaps *snapshots
	em    *emitter
	wr    *windowReader // set with em, when the run starts producing
	idle  *idleWindows  // the idle-table rule; nil with skip_idle_tables off
	sig   *signalSource // the signal table; nil without signal_table

	start *checkpoint.State // where the run starts: committed, or fresh

	// Differences between a resumed position and the tables selected now,
	// applied when the run starts.
	pendingRemovals []string
	pendingAdds     []*tableInfo

	// round counts the tables the event going on (the run's start, a
	// discovery) brings in; nil between events. Only the run's own
	// goroutine sets and reads it.
	round *joinRound
	// eventStart is the binlog start that the tables one event adds share
	// (beginEvent to endEvent): found together, they catch up together, in
	// one merged read, and a discovery of a thousand tables does not wait a
	// Doris second for each.
	eventStart *windowplan.Bound

	mu      sync.Mutex
	tables  map[string]*tableInfo
	rounds  map[string]*joinRound // the round of each table not yet settled
	skipped *skippedTables        // tables matched but not followable
}

// runEnv is what a run takes from the input that starts it.
type runEnv struct {
	conf  *Config
	log   *service.Logger
	m     *metrics
	c     *conn
	clock dorisClock // the Doris time window ends come from: c, but for tests
	// newBatcher gives the batching policy's processors, or nil without one.
	newBatcher func() (*service.Batcher, error)
	planned    *windowplan.Ends
	// resave writes the committed position again, with the planned ends.
	resave  func(context.Context) error
	maxRows int // rows per emitted batch
}

// newCoordinator sets up the run that startup planned.
func newCoordinator(env runEnv, sp *startPoint, cat *catalog) *coordinator {
	co := &coordinator{
		runEnv:          env,
		cat:             cat,
		start:           sp.st,
		pendingRemovals: sp.removals,
		pendingAdds:     sp.adds,
		tables:          map[string]*tableInfo{},
		rounds:          map[string]*joinRound{},
		skipped:         sp.skipped,
	}
	co.snaps = newSnapshots(co)
	if env.conf.SkipIdleTables {
		co.idle = newIdleWindows(env.conf, env.log, env.c)
	}
	for _, t := range sp.tables {
		co.follow(t)
	}
	return co
}

// produce is the run: it starts the snapshots the position still needs,
// then follows the window chain, or waits for the snapshots to finish when
// there is no binlog phase.
func (co *coordinator) produce(ctx context.Context, run *delivery.Run[*checkpoint.State]) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	co.snaps.fail = cancel
	batcher, err := co.newBatcher()
	if err != nil {
		return err
	}
	if batcher != nil {
		defer batcher.Close(context.Background())
	}
	co.em = &emitter{run: run, batcher: batcher, progress: co.start.Clone()}
	co.wr = newWindowReader(co)
	defer co.snaps.wait()
	// The stored position's snapshots first: a table added just below
	// starts its own, and must not be started twice.
	co.beginEvent()
	co.snaps.startPending(ctx)
	for _, t := range co.phaseTables(checkpoint.PhaseCatchUp) {
		co.enterRound(t.name.key, false, true)
	}
	if err := co.applyResumeChanges(ctx); err != nil {
		co.stopSnapshots(cancel, err)
		return run.Settle(err)
	}
	co.endEvent()
	co.refreshTableGauges()
	if co.start.Stream == nil {
		co.snaps.wait()
		if err := context.Cause(ctx); err != nil {
			return run.Settle(err)
		}
		return run.WaitUnacked(ctx)
	}
	if err = co.runStream(ctx); err != nil {
		co.stopSnapshots(cancel, err)
	}
	if cause := context.Cause(ctx); cause != nil {
		err = cause
	}
	return run.Settle(err)
}

// runStream follows the window chain forever: take end = the current Doris
// time, read [start, end) of every streaming table, then start = end.
// Windows chain without gaps, and a window is never shortened or skipped.
// Between windows it lists the tables again when discovery is due, and lets
// tables whose snapshot finished catch up and join.
func (co *coordinator) runStream(ctx context.Context) error {
	if err := co.snaps.waitChainStart(ctx); err != nil {
		return err
	}
	if err := co.openSignals(ctx); err != nil {
		return err
	}
	var stored checkpoint.Bound
	co.em.view(func(st *checkpoint.State) { stored = st.Stream.Start })
	if stored.IsZero() {
		return fmt.Errorf("binlog stream start is not set")
	}
	start := windowplan.BoundOf(stored)
	co.log.Infof("Binlog phase: reading %s changes of %d table(s) from %s", co.conf.IncrementType, len(co.phaseTables(checkpoint.PhaseBinlog)), co.c.describeBound(start))
	ch, disc := &chain{co: co}, &discoverer{co: co, last: time.Now()}
	for {
		if disc.due() {
			if err := disc.run(ctx); err != nil {
				return err
			}
		}
		if err := co.catchUp(ctx); err != nil {
			return err
		}
		if err := ch.next(ctx); err != nil {
			return err
		}
	}
}

// catchUp reads, for each table whose snapshot finished (or that was found)
// after the chain had moved on, its own binlog from its start to the
// chain's start, and then lets it join the chain. A table whose start the
// chain has not reached yet waits. Tables with the same catch-up window
// and progress (those found by one discovery, say) are read together as
// one merged window, so a thousand new tables join in one read, not in a
// thousand.
func (co *coordinator) catchUp(ctx context.Context) error {
	groups, err := catchUpGroups(co.em, co.phaseTables(checkpoint.PhaseCatchUp))
	if err != nil {
		return err
	}
	for _, g := range groups {
		if err := g.read(ctx, co); err != nil {
			return err
		}
	}
	return nil
}

// stopSnapshots ends the snapshots still running (of tables that joined
// late) when the run fails for another reason, so that the failure ends the
// run now rather than when they finish; a snapshot's own earlier failure
// stays the cause.
func (co *coordinator) stopSnapshots(cancel context.CancelCauseFunc, err error) {
	cancel(err)
	co.snaps.wait()
}

// applyResumeChanges removes the tables of the stored position that are no
// longer selected or no longer exist, and adds the newly selected ones.
// A changed include can remove or add every table at once, so each change
// is summarised in one line, and each table named at debug level.
func (co *coordinator) applyResumeChanges(ctx context.Context) error {
	if len(co.pendingRemovals) > 0 {
		co.log.Warnf("Tables in the checkpoint that are no longer selected or no longer exist leave the stream and the checkpoint: %s", tableList(co.pendingRemovals))
	}
	for _, key := range co.pendingRemovals {
		co.log.Debugf("Table %s is in the checkpoint but no longer selected or no longer exists: it leaves the stream and the checkpoint", key)
		if err := co.removeTable(ctx, key); err != nil {
			return err
		}
	}
	added := make([]string, 0, len(co.pendingAdds))
	for _, t := range co.pendingAdds {
		if err := co.addTable(ctx, t); err != nil {
			return err
		}
		added = append(added, t.name.key)
	}
	if len(added) > 0 {
		co.log.Infof("Tables newly selected join the stream: %s", tableList(added))
	}
	co.pendingRemovals, co.pendingAdds = nil, nil
	return nil
}

// follow makes t one of the run's tables.
func (co *coordinator) follow(t *tableInfo) {
	co.mu.Lock()
	co.tables[t.name.key] = t
	co.mu.Unlock()
	// Exporters create a series on its first use; at zero it is there for
	// rate() and alerts from the first scrape.
	if co.conf.HasBinlogPhase() {
		co.m.expiredGaps.Incr(0, t.name.key)
	}
}

// table returns the followed table named key, or nil.
func (co *coordinator) table(key string) *tableInfo {
	co.mu.Lock()
	defer co.mu.Unlock()
	return co.tables[key]
}

func (co *coordinator) followedKeys() []string {
	co.mu.Lock()
	defer co.mu.Unlock()
	keys := make([]string, 0, len(co.tables))
	for k := range co.tables {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// phaseTables returns the followed tables in phase, in name order.
func (co *coordinator) phaseTables(phase string) []*tableInfo {
	var keys []string
	co.em.view(func(st *checkpoint.State) {
		for k, t := range st.Tables {
			if t.Phase == phase {
				keys = append(keys, k)
			}
		}
	})
	slices.Sort(keys)
	out := make([]*tableInfo, 0, len(keys))
	for _, k := range keys {
		if t := co.table(k); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// addTable makes a new table part of the stream: with a snapshot phase it
// is snapshotted and then catches up from its own start; otherwise it joins
// the chain at the next window.
func (co *coordinator) addTable(ctx context.Context, t *tableInfo) error {
	_, hi, err := t.tabletRange(ctx)
	if err != nil {
		return err
	}
	t.notePartitions(ctx)
	snapshot, start, asOf := co.conf.HasSnapshotPhase(), checkpoint.Bound{}, int64(0)
	if snapshot && co.conf.HasBinlogPhase() {
		ts, err := co.newTableStart(ctx)
		if err != nil {
			return fmt.Errorf("resolving the binlog start of new table %s: %w", t.name.key, err)
		}
		start, asOf = ts.Stored(), snapshotTSOOf(ts)
	}
	co.follow(t)
	var entry checkpoint.Table
	if err := co.em.emit(ctx, nil, func(st *checkpoint.State) {
		st.AddTable(t.name.key, snapshot, start, hi)
		st.SetSnapshotTSO(t.name.key, asOf)
		entry = *st.Tables[t.name.key]
	}); err != nil {
		return err
	}
	// Debug: a discovery or a changed include may add a thousand tables at
	// once; their callers summarise them at info level.
	co.log.Debugf("Table %s joins the stream: %s", t.name.key, describeTable(&entry))
	if entry.Phase == checkpoint.PhaseBinlog {
		return nil // it reads the next shared window
	}
	co.enterRound(t.name.key, snapshot, !start.IsZero())
	if snapshot {
		co.snaps.start(ctx, t, nil)
	}
	return nil
}

// beginEvent starts an event that may add tables: the run's start or a
// discovery.
func (co *coordinator) beginEvent() {
	co.round = newJoinRound(co.log)
	co.eventStart = nil
}

// endEvent ends it: its round may log its end, and the next event's tables
// get a start of their own.
func (co *coordinator) endEvent() {
	co.round.seal()
	co.round, co.eventStart = nil, nil
}

// newTableStart is where a new table's own binlog begins, shared by every
// table of the event: the Doris second before the current one, whose first
// millisecond ends at the TSO the tables' snapshots are read as of
// (snapshotasof.go). It is already past, so nothing waits for it; a table
// added later in the event reads its snapshot as of the same TSO.
func (co *coordinator) newTableStart(ctx context.Context) (windowplan.Bound, error) {
	if co.eventStart != nil {
		return *co.eventStart, nil
	}
	now, err := co.clock.currentBound(ctx)
	if err != nil {
		return now, err
	}
	ts, _ := startTSO(now)
	if co.round != nil {
		co.eventStart = &ts
	}
	return ts, nil
}

// removeTable drops a table from the stream and the checkpoint.
func (co *coordinator) removeTable(ctx context.Context, key string) error {
	co.mu.Lock()
	delete(co.tables, key)
	co.mu.Unlock()
	co.leaveRound(key)
	return co.em.emit(ctx, nil, func(st *checkpoint.State) { st.DropTable(key) })
}

// refreshTableGauges counts the tables per state for doris_binlog_tables.
func (co *coordinator) refreshTableGauges() {
	counts := map[string]int64{"streaming": 0, "snapshotting": 0}
	count := func(st *checkpoint.State) {
		for _, t := range st.Tables {
			switch t.Phase {
			case checkpoint.PhaseSnapshot:
				counts["snapshotting"]++
			case checkpoint.PhaseCatchUp, checkpoint.PhaseBinlog:
				counts["streaming"]++
			}
		}
	}
	co.em.view(count)
	counts["skipped"] = int64(co.skipped.count())
	for state, n := range counts {
		co.m.tables.Set(n, state)
	}
}

// dropTables removes tables found gone, by a window read or a discovery.
func (co *coordinator) dropTables(ctx context.Context, keys []string) error {
	for _, key := range keys {
		co.log.Warnf("Table %s was dropped: it leaves the stream and the checkpoint", key)
		if err := co.removeTable(ctx, key); err != nil {
			return err
		}
	}
	if len(keys) > 0 {
		co.refreshTableGauges()
	}
	return nil
}
