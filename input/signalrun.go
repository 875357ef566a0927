package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// Metadata the converter sets that signal rows are told apart by.
const (
	metaKeyTable     = "table"
	metaKeyDatabase  = "database_schema"
	metaKeyOperation = "operation"
)

// signalSource is the run's signal table (signal_table): the chain reads it
// in every window with the data tables, and its rows become signals noted
// in the checkpoint, never messages.
type signalSource struct {
	co *coordinator
	t  *tableInfo
}

// openSignals checks the signal table and makes the chain read it; without
// signal_table it does nothing. A table that is missing or not shaped as
// signals stops the input; a check that fails for another reason (the FE
// unreachable) is retried with backoff, warning once.
func (co *coordinator) openSignals(ctx context.Context) error {
	if co.conf.SignalTable == "" {
		return nil
	}
	name, err := parseTableName(co.conf.SignalTable)
	if err != nil {
		return fmt.Errorf("%s: %w", fieldSignalTable, err)
	}
	var bo windowplan.Backoff
	warned := false
	for attempt := 1; ; attempt++ {
		t, err := co.checkSignalTable(ctx, name)
		if err == nil {
			t.signal = true
			co.sig = &signalSource{co: co, t: t}
			co.wr.sig = co.sig
			co.log.Infof("Reading signals from %s in every binlog window", name.key)
			return nil
		}
		if isFatal(err) || ctx.Err() != nil {
			return err
		}
		if attempt >= co.conf.Retries {
			return fmt.Errorf("checking %s %s failed %d times: %w", fieldSignalTable, name.key, attempt, err)
		}
		if !warned {
			co.log.Warnf("Checking %s %s failed, retrying with backoff: %v", fieldSignalTable, name.key, err)
			warned = true
		}
		if err := doris.Sleep(ctx, bo.Next()); err != nil {
			return err
		}
	}
}

// checkSignalTable reads the signal table's facts: a fatal error when it
// cannot serve as one.
func (co *coordinator) checkSignalTable(ctx context.Context, name tableName) (*tableInfo, error) {
	exists, err := doris.TableExists(ctx, co.c.rest, name.db, name.table)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fatalf("%s %s does not exist: create it (docs/operating.md, Signals, has the DDL) or remove %s", fieldSignalTable, name.key, fieldSignalTable)
	}
	t, problem, err := co.cat.admit(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("checking %s %s: %w", fieldSignalTable, name.key, err)
	}
	if problem != "" {
		return nil, fatalf("%s %s cannot be read: %s", fieldSignalTable, name.key, problem)
	}
	props, err := t.properties(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("checking %s %s: %w", fieldSignalTable, name.key, err)
	}
	if err := checkSignalColumns(props.Columns); err != nil {
		return nil, fatalf("%s %s: %v", fieldSignalTable, name.key, err)
	}
	return t, nil
}

// checkSignalColumns requires the id, type and data columns as strings.
func checkSignalColumns(cols []doris.ColumnDef) error {
	for _, want := range []string{signalColID, signalColType, signalColData} {
		i := slices.IndexFunc(cols, func(c doris.ColumnDef) bool { return strings.EqualFold(c.Name, want) })
		if i < 0 {
			return fmt.Errorf("the table has no column %s; a signal table has the string columns %s, %s and %s", want, signalColID, signalColType, signalColData)
		}
		typ := strings.ToLower(cols[i].Type)
		if !strings.HasPrefix(typ, "varchar") && !strings.HasPrefix(typ, "char") && !strings.HasPrefix(typ, "string") && !strings.HasPrefix(typ, "text") {
			return fmt.Errorf("column %s is %s; it must be a string type (VARCHAR, CHAR or STRING)", want, cols[i].Type)
		}
	}
	return nil
}

// take removes the signal table's rows from a merged batch and parses the
// inserted ones; a row that is no signal is skipped with a warning naming
// its id.
func (ss *signalSource) take(msgs []*service.Message) ([]*service.Message, []*signal) {
	if ss == nil {
		return msgs, nil
	}
	data, rows := signalRows(msgs, ss.t.name)
	var sigs []*signal
	for _, m := range rows {
		if op, _ := m.MetaGetMut(metaKeyOperation); op != "insert" {
			continue // updates and deletes of old signals are no signals
		}
		body, err := m.AsBytes()
		if err != nil {
			ss.co.log.Warnf("Skipping a row of %s %s: its body cannot be read: %v", fieldSignalTable, ss.t.name.key, err)
			continue
		}
		sig, err := parseSignal(body)
		if err != nil {
			id := "without an id"
			if sig != nil && sig.id != "" {
				id = fmt.Sprintf("%q", sig.id)
			}
			ss.co.log.Warnf("Skipping signal %s of %s %s: %v", id, fieldSignalTable, ss.t.name.key, err)
			continue
		}
		sigs = append(sigs, sig)
	}
	return data, sigs
}

// note records sigs on the tables they name, in the change of the batch
// that delivers their rows: from then on the checkpoint holds them.
func (ss *signalSource) note(st *checkpoint.State, sigs []*signal) {
	for _, sig := range sigs {
		targets := sig.tables
		if len(targets) == 0 { // stop-snapshot of every signalled snapshot
			for _, key := range st.TableNames() {
				if t := st.Tables[key]; t.Phase == checkpoint.PhaseSnapshot && t.Signal != "" {
					targets = append(targets, key)
				}
			}
			if len(targets) == 0 {
				ss.co.log.Warnf("Signal %q (%s) is skipped: no snapshot started by a signal is in progress", sig.id, sig.kind)
			}
		}
		for _, key := range targets {
			if st.Tables[key] == nil {
				ss.co.log.Warnf("Signal %q (%s) is skipped for table %s: this input does not follow it", sig.id, sig.kind, key)
				continue
			}
			if prev := st.Tables[key].Pending; prev != nil {
				ss.co.log.Warnf("Signal %q (%s) for table %s replaces signal %q (%s) of the same binlog window, which is not applied",
					sig.id, sig.kind, key, prev.ID, prev.Kind)
			}
			st.NoteSignal(key, checkpoint.PendingSignal{ID: sig.id, Kind: sig.kind, Filter: sig.filters[key]})
			ss.co.log.Infof("Signal %q (%s) read for table %s: it takes effect at the end of the current binlog window", sig.id, sig.kind, key)
		}
	}
}

// withSignal adds the signal table to a chain window's tables.
func (co *coordinator) withSignal(tables []*tableInfo) []*tableInfo {
	if co.sig == nil {
		return tables
	}
	return append(slices.Clip(tables), co.sig.t)
}

// signalDropped fails the run when the window found the signal table
// dropped, and gives the data tables found dropped.
func (co *coordinator) signalDropped(dropped []string) ([]string, error) {
	if co.sig == nil || !slices.Contains(dropped, co.sig.t.name.key) {
		return dropped, nil
	}
	return nil, fatalf("%s %s was dropped: signals cannot be read. Create it again, or remove %s from the config", fieldSignalTable, co.sig.t.name.key, fieldSignalTable)
}

// stopSignalled ends the snapshot reads a stop-snapshot signal of the
// current window cancels, before the window's end applies it: the table
// then delivers no more snapshot rows after its phase moved on.
func (co *coordinator) stopSignalled() {
	var keys []string
	co.em.view(func(st *checkpoint.State) { keys = st.PendingStops() })
	for _, key := range keys {
		co.snaps.cancel(key)
	}
}

// applySignals acts on what the window's end did with its signals: the
// tables that left the chain start their snapshots.
func (co *coordinator) applySignals(ctx context.Context, end checkpoint.Bound, results []checkpoint.SignalResult) {
	var started []*tableInfo
	for _, r := range results {
		switch r.Outcome {
		case checkpoint.SignalStarted:
			co.log.Infof("Signal %q (%s): table %s leaves the shared binlog windows at %s and takes a new snapshot; then it catches up from there and rejoins them",
				r.ID, r.Kind, r.Table, co.c.describeBound(windowplan.BoundOf(end)))
			if t := co.table(r.Table); t != nil {
				started = append(started, t)
			}
		case checkpoint.SignalStopped:
			co.log.Infof("Signal %q (%s): the snapshot of %s is cancelled, the rows it delivered stay delivered; the table catches up from where it left the shared binlog windows and rejoins them",
				r.ID, r.Kind, r.Table)
			co.leaveRound(r.Table)
		default:
			co.log.Warnf("Signal %q (%s) is skipped for table %s: %s", r.ID, r.Kind, r.Table, r.Reason)
		}
	}
	if len(started) == 0 {
		co.refreshTableGauges()
		return
	}
	co.beginEvent()
	for _, t := range started {
		co.enterRound(t.name.key, true, true)
		co.snaps.start(ctx, t, nil)
	}
	co.endEvent()
	co.refreshTableGauges()
}

// errSnapshotStopped ends a snapshot read that a stop-snapshot signal
// cancelled; the run goes on.
var errSnapshotStopped = errors.New("snapshot stopped by a stop-snapshot signal")

// snapRun is one table's snapshot read in progress.
type snapRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// track gives the snapshot read of table key its own context, which cancel
// ends; end is called when the read ends.
func (s *snapshots) track(ctx context.Context, key string) (context.Context, func()) {
	run := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	ctx = context.WithValue(ctx, runCtxKey{}, run)
	r := &snapRun{cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	if s.runs == nil {
		s.runs = map[string]*snapRun{}
	}
	s.runs[key] = r
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		if s.runs[key] == r {
			delete(s.runs, key)
		}
		s.mu.Unlock()
		cancel(nil)
		close(r.done)
	}
}

// cancel ends table key's snapshot read, if one runs, and waits for it.
func (s *snapshots) cancel(key string) {
	s.mu.Lock()
	r := s.runs[key]
	s.mu.Unlock()
	if r == nil {
		return
	}
	r.cancel(errSnapshotStopped)
	<-r.done
}

type runCtxKey struct{}

// emitContext is the context a snapshot read hands its rows on with: the
// run's, not the read's own, so that a stop-snapshot ends the read between
// two batches, never a batch in the middle of its batching processors
// (which would log the batch as dropped).
func emitContext(ctx context.Context) context.Context {
	if run, ok := ctx.Value(runCtxKey{}).(context.Context); ok {
		return run
	}
	return ctx
}

// stoppedBySignal tells whether a snapshot read ended because a signal
// cancelled it (and not the run).
func stoppedBySignal(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errSnapshotStopped)
}

// snapshotSignal is the signal and filter of table key's snapshot, empty
// for the snapshot of its start.
func (co *coordinator) snapshotSignal(key string) (id, filter string) {
	co.em.view(func(st *checkpoint.State) {
		if t := st.Tables[key]; t != nil {
			id, filter = t.Signal, t.SignalFilter
		}
	})
	return id, filter
}

// markSignal names the signal on each snapshot row it caused.
func markSignal(msgs []*service.Message, id string) {
	if id == "" {
		return
	}
	for _, m := range msgs {
		m.MetaSetMut(metaSignalID, id)
	}
}

// setSnapshotFilter sets the condition of t's next snapshot reads.
func (t *tableInfo) setSnapshotFilter(filter string) {
	t.mu.Lock()
	t.snapFilter = filter
	t.mu.Unlock()
}

// filterOf is the condition t's snapshot reads rows by: a signal's, or
// filter_query (which incremental modes, the only ones with signals, do
// not allow).
func (sr *splitReader) filterOf(t *tableInfo) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.snapFilter != "" {
		return t.snapFilter
	}
	return sr.conf.FilterQuery
}

// dataPositions keeps the positions of the rows take left as data (n of
// them), so transaction markers count and place data rows only.
func (ss *signalSource) dataPositions(msgs []*service.Message, pos []checkpoint.Pos, n int) []checkpoint.Pos {
	if n == len(msgs) {
		return pos
	}
	out := make([]checkpoint.Pos, 0, n)
	for i, m := range msgs {
		if !isSignalRow(m, ss.t.name) {
			out = append(out, pos[i])
		}
	}
	return out
}
