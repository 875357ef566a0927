package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// snapCoordinator is a coordinator whose position has d.s in its snapshot
// phase with done tablets delivered, over the fixture's split reader;
// stream says whether the position has a window chain (scan_mode initial)
// for the table to join.
func snapCoordinator(t *testing.T, f *snapFixture, stream bool, done []int64) (*coordinator, *recordingSink) {
	t.Helper()
	st := checkpoint.New()
	if stream {
		st.StartChain(ckb("2026-12-01 10:00:00"))
	}
	st.AddTable(f.t.name.key, true, checkpoint.Bound{}, slices.Max(f.tablets()))
	st.SnapshotTabletsDone(f.t.name.key, done)
	res := service.MockResources()
	sink := &recordingSink{}
	co := &coordinator{
		runEnv:  runEnv{conf: f.conf, log: res.Logger(), m: f.sr.m, c: f.c, clock: f.c, maxRows: f.sr.maxRows},
		em:      &emitter{run: sink, progress: st},
		tables:  map[string]*tableInfo{},
		skipped: newSkippedTables(res.Logger()),
	}
	co.snaps = newSnapshots(co)
	co.snaps.sr = f.sr
	co.follow(f.t)
	return co, sink
}

// runSnapshots starts the position's pending snapshots and waits for them;
// it returns the failure that ended the run, if any.
func runSnapshots(t *testing.T, co *coordinator) error {
	t.Helper()
	ctx, cancel := context.WithCancelCause(testCtx(t))
	defer cancel(nil)
	co.snaps.fail = cancel
	co.snaps.startPending(ctx)
	co.snaps.wait()
	return context.Cause(ctx)
}

// placedRows checks the positions the batches were registered under and
// returns the rows emitted, sorted: a tablet not done before (in before)
// counts as done only in a batch at or after the one holding the last of
// its rows.
func placedRows(t *testing.T, f *snapFixture, sink *recordingSink, before []int64) []string {
	t.Helper()
	var rows []string
	for i, b := range sink.batches {
		for _, m := range b {
			body, err := m.AsBytes()
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, string(body))
		}
		tbl := sink.states[i].Tables[f.t.name.key]
		if tbl == nil {
			t.Fatalf("batch %d: d.s is not in the position", i)
		}
		for _, id := range tbl.DoneTablets {
			if slices.Contains(before, id) {
				continue
			}
			for _, r := range f.byTablet[id] {
				if !slices.Contains(rows, r) {
					t.Errorf("batch %d has tablet %d done before its row %s was emitted", i, id, r)
				}
			}
		}
	}
	slices.Sort(rows)
	return rows
}

// lastPosition is the table's part of the last registered position.
func lastPosition(t *testing.T, sink *recordingSink) *checkpoint.Table {
	t.Helper()
	if len(sink.states) == 0 {
		t.Fatal("nothing was emitted")
	}
	return sink.states[len(sink.states)-1].Tables["d.s"]
}

// checkFinished checks that the last position has the snapshot finished
// into phase want.
func checkFinished(t *testing.T, sink *recordingSink, want string) {
	t.Helper()
	if last := lastPosition(t, sink); last.Phase != want || last.DoneTablets != nil {
		t.Errorf("last position: phase %s, done tablets %v; want phase %s and none", last.Phase, last.DoneTablets, want)
	}
}

func checkSplitGauges(t *testing.T, f *snapFixture, done, total int64) {
	t.Helper()
	if got, _ := f.capt.gauge("doris_binlog_snapshot_splits_done", "d.s"); got != done {
		t.Errorf("snapshot_splits_done %d, want %d", got, done)
	}
	if got, _ := f.capt.gauge("doris_binlog_snapshot_splits", "d.s"); got != total {
		t.Errorf("snapshot_splits %d, want %d", got, total)
	}
}

// A snapshot emits every row once, marks a split's tablets done with its
// last rows, and finishes into the next phase: done without a stream,
// binlog for a table that started with the chain.
func TestSnapshotEmitsSplitsAndFinishes(t *testing.T) {
	for _, tc := range []struct {
		stream bool
		next   string
	}{{false, checkpoint.PhaseDone}, {true, checkpoint.PhaseBinlog}} {
		f := newSnapFixture(t, nil)
		co, sink := snapCoordinator(t, f, tc.stream, nil)
		if err := runSnapshots(t, co); err != nil {
			t.Fatal(err)
		}
		if got, want := placedRows(t, f, sink, nil), f.rowsOf(f.tablets()...); !slices.Equal(got, want) {
			t.Fatalf("stream %v: emitted %v, want %v", tc.stream, got, want)
		}
		checkFinished(t, sink, tc.next)
		checkSplitGauges(t, f, 2, 2)
		select {
		case <-co.snaps.finished:
		default:
			t.Errorf("stream %v: the finished snapshot was not signalled", tc.stream)
		}
	}
}

// A snapshot resumed after a partial one reads only the tablets not yet
// done, and counts the splits done before.
func TestSnapshotResumesAfterAPartialSnapshot(t *testing.T) {
	f := newSnapFixture(t, nil)
	ids := f.tablets()
	co, sink := snapCoordinator(t, f, false, ids[:2]) // the first split
	if err := runSnapshots(t, co); err != nil {
		t.Fatal(err)
	}
	if got, want := placedRows(t, f, sink, ids[:2]), f.rowsOf(ids[2:]...); !slices.Equal(got, want) {
		t.Fatalf("emitted %v, want only the rows of tablets %v: %v", got, ids[2:], want)
	}
	checkFinished(t, sink, checkpoint.PhaseDone)
	checkSplitGauges(t, f, 2, 2)
}

// A snapshot that fails ends the run with its error; the table stays in
// its snapshot phase, with the tablets delivered before the failure done
// and the failed split's not.
func TestSnapshotFailureEndsTheRun(t *testing.T) {
	f := newSnapFixture(t, func(c *Config) { c.Retries = 1; c.MaxParallelSnapshotSplits = 1 })
	ids := f.tablets()
	// Resumed with the first tablet done, the first split is the second
	// tablet; the second split, read after it, is the only stream long
	// enough to be cut.
	first, second := f.rowsOf(ids[1]), f.rowsOf(ids[2:]...)
	if len(second) <= len(first) {
		t.Fatalf("tablets %v hold %d and %d rows: the test needs the second split larger", ids, len(first), len(second))
	}
	co, sink := snapCoordinator(t, f, false, ids[:1])
	f.srv.SetFaults(dorissim.Faults{CutDoGetAfterRows: len(first) + 1})
	err := runSnapshots(t, co)
	if err == nil || !strings.Contains(err.Error(), "snapshot split") || !strings.Contains(err.Error(), "d.s") {
		t.Fatalf("run: %v, want the split's failure", err)
	}
	for i, st := range sink.states {
		if ph := st.Tables["d.s"].Phase; ph != checkpoint.PhaseSnapshot {
			t.Fatalf("batch %d moved d.s to %s after a failed snapshot", i, ph)
		}
	}
	rows := placedRows(t, f, sink, ids[:1])
	for _, r := range first {
		if !slices.Contains(rows, r) {
			t.Errorf("row %s of the split read before the failure was not emitted", r)
		}
	}
	if done := lastPosition(t, sink).DoneTablets; !slices.Equal(done, ids[:2]) {
		t.Errorf("done tablets %v after the failure, want %v", done, ids[:2])
	}
	checkSplitGauges(t, f, 1, 2)
	select {
	case <-co.snaps.finished:
		t.Fatal("a failed snapshot was signalled as finished")
	default:
	}
}

// A batch delivery refuses stops the split workers and ends the run with
// delivery's error; the snapshot does not finish.
func TestSnapshotStopsWhenDeliveryFails(t *testing.T) {
	f := newSnapFixture(t, nil)
	co, sink := snapCoordinator(t, f, false, nil)
	refused := errors.New("delivery is shutting down")
	sink.err = refused
	if err := runSnapshots(t, co); !errors.Is(err, refused) {
		t.Fatalf("run: %v, want delivery's error", err)
	}
	var phase string
	co.em.view(func(st *checkpoint.State) { phase = st.Tables["d.s"].Phase })
	if phase != checkpoint.PhaseSnapshot {
		t.Fatalf("d.s in phase %s after delivery failed, want still snapshot", phase)
	}
}

// Before the snapshot of a table with a binlog phase, the input reads the
// empty window at its start, which waits for earlier publishes; Doris's
// visible-wait timeout there is retried as for any window, with a warning,
// and the snapshot then reads every row. Without a binlog phase there is no
// such read.
func TestSnapshotWaitsForPublishesBeforeTheStart(t *testing.T) {
	for _, stream := range []bool{true, false} {
		f := newSnapFixture(t, func(c *Config) { c.VisibleWaitTimeout = time.Minute })
		f.srv.SetFaults(dorissim.Faults{IncrVisibleWaitTimeouts: 1})
		co, sink := snapCoordinator(t, f, stream, nil)
		if err := runSnapshots(t, co); err != nil {
			t.Fatal(err)
		}
		if got, want := placedRows(t, f, sink, nil), f.rowsOf(f.tablets()...); !slices.Equal(got, want) {
			t.Fatalf("stream %v: emitted %v, want %v", stream, got, want)
		}
		warned := len(f.log.Lines("WARN", "Binlog window [2026-12-01 10:00:00, 2026-12-01 10:00:00) of d.s waits for transactions to become visible"))
		if want := map[bool]int{true: 1, false: 0}[stream]; warned != want {
			t.Fatalf("stream %v: %d visible-wait warnings, want %d\n%s", stream, warned, want, strings.Join(f.log.Lines("", ""), "\n"))
		}
	}
}

// A barrier read that keeps failing for another reason than Doris's "not
// yet" ends the run after request_retries attempts, like a snapshot split,
// before any row is read.
func TestSnapshotPublishWaitFailuresAreBounded(t *testing.T) {
	f := newSnapFixture(t, nil)
	f.srv.SetFaults(dorissim.Faults{FailGetFlightInfo: f.conf.Retries})
	co, sink := snapCoordinator(t, f, true, nil)
	err := runSnapshots(t, co)
	want := fmt.Sprintf("waiting for the publishes before the snapshot of d.s (the empty binlog window at 2026-12-01 10:00:00) failed %d times", f.conf.Retries)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("run: %v, want an error saying %q", err, want)
	}
	if len(sink.batches) != 0 {
		t.Fatalf("%d batches emitted before the publishes were known to be visible", len(sink.batches))
	}
}
