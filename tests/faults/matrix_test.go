package faults

import (
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// matrixFault is one row of the fault matrix (docs/guarantees.md, "What fails
// loudly"): a fault held for a few seconds and then lifted, after which the
// stream must have recovered with nothing lost and no binlog position
// delivered twice. The faults that end in a stop instead (a repeating
// window error that outlives binlog.ttl_seconds, a cache that refuses the
// checkpoint for good) have tests of their own: stall_test.go and the
// checkpoint tests.
type matrixFault struct {
	name string
	// inject starts the fault; lift ends it (nil: ClearFaults).
	inject func(srv *dorissim.Server)
	// output fails batches while the fault is held.
	output bool
	// dorisCache keeps the checkpoint in the doris cache (on the
	// simulator's MySQL port) instead of memory.
	dorisCache bool
	// atStart injects the fault in the snapshot phase before the stream
	// starts rather than after its first batch: the FE's REST API is used
	// to plan the snapshot, not while it is read.
	atStart bool
}

const faultHold = 4 * time.Second

var matrixFaults = []matrixFault{
	{name: "fe_http_down", atStart: true, inject: func(s *dorissim.Server) { s.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: faultHold}) }},
	{name: "fe_flight_down", inject: func(s *dorissim.Server) { s.SetFaults(dorissim.Faults{Refuse: "flight", RefuseFor: faultHold}) }},
	{name: "be_flight_down", inject: func(s *dorissim.Server) { s.SetFaults(dorissim.Faults{Refuse: "be_flight", RefuseFor: faultHold}) }},
	{name: "query_fails_repeatedly", inject: func(s *dorissim.Server) { s.SetFaults(dorissim.Faults{FailGetFlightInfo: 1 << 30}) }},
	{name: "cache_set_fails", dorisCache: true, inject: func(s *dorissim.Server) { s.SetFaults(dorissim.Faults{Refuse: "mysql", RefuseFor: faultHold}) }},
	{name: "output_fails", output: true},
}

// held is a fault's switch, flipped by the test and read by the output.
type held struct {
	mu sync.Mutex
	on bool
}

func (h *held) set(on bool) { h.mu.Lock(); h.on = on; h.mu.Unlock() }
func (h *held) get() bool   { h.mu.Lock(); defer h.mu.Unlock(); return h.on }

func (mf matrixFault) resources(srv *dorissim.Server) string {
	if !mf.dorisCache {
		return harness.MemoryCache
	}
	return fmt.Sprintf("cache_resources:\n  - label: cp\n    doris:\n      jdbc_url: jdbc:mysql://%s?connectTimeout=1000\n      table: %s.checkpoints\n",
		srv.MySQLAddr(), db)
}

// run holds the fault for faultHold, then lifts it.
func (mf matrixFault) run(srv *dorissim.Server, out *held) {
	if mf.inject != nil {
		mf.inject(srv)
	}
	out.set(mf.output)
	time.Sleep(faultHold)
	out.set(false)
	srv.ClearFaults()
}

// matrixCollector is an output that takes delay per batch, and fails
// batches while out is on.
func matrixCollector(out *held, delay time.Duration) *harness.Collector {
	return &harness.Collector{Delay: delay, Reject: func(int, []harness.Event) bool { return out.get() }}
}

// assertRecovered checks the table is rebuilt with binlog events put in
// position order (a batch the output failed is delivered again after later
// ones), no binlog position twice, and that the fault reached the input.
func (f *fixture) assertRecovered(t *testing.T, timeout time.Duration) {
	t.Helper()
	f.assertRebuilt(t, timeout, harness.SortDedupe)
	// The fault fired: the input noticed it, and said so.
	if len(f.logs.Lines(slog.LevelWarn, "")) == 0 {
		t.Fatalf("no warning was logged: the fault did not reach the input")
	}
}

// TestFaultMatrixSnapshot injects each fault while an initial-mode stream
// is in its snapshot (after its first batch was delivered), then lifts it
// and changes the table: every row and every change arrives, no binlog
// position twice. Snapshot rows of a split read again may repeat; they
// are upserts of the same row.
func TestFaultMatrixSnapshot(t *testing.T) {
	for i, mf := range matrixFaults {
		t.Run(mf.name, func(t *testing.T) {
			srv := harness.StartSim(t, dorissim.Config{})
			table := "snap_" + mf.name
			harness.CreateTable(t, srv, db, table, harness.TableOpts{Buckets: 8})
			w := harness.NewWorkload(srv, db, table, uint64(100+i))
			if err := w.Insert(ctxTimeout(t, time.Minute), 2000); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1100 * time.Millisecond) // in a past Doris second: snapshot rows
			out := &held{}
			// 80 batches of 60 ms: the snapshot outlasts the fault.
			f := newFixture(t, srv, table, w, matrixCollector(out, 60*time.Millisecond))
			// One query per split: a fault must find queries still to run.
			in := harness.InputYAML(srv, db+"."+table, "scan_mode: initial", "batch_size: 25", "max_parallel_snapshot_splits: 1",
				"snapshot_query_rows: 0")
			done := make(chan struct{})
			if mf.atStart {
				go func() { defer close(done); mf.run(srv, out) }()
			}
			f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: mf.resources(srv), Logs: f.logs}, f.col)
			if !mf.atStart {
				f.col.WaitFor(t, 60*time.Second, "the first snapshot batch", func(evs []harness.Event) bool { return len(evs) > 0 })
				go func() { defer close(done); mf.run(srv, out) }()
			}
			<-done
			if evs := f.col.Events(); len(evs) >= 2000 {
				t.Logf("the snapshot had ended (%d events) when the fault was lifted", len(evs))
			}
			f.steps(t, 20)
			f.assertRecovered(t, 120*time.Second)
		})
	}
}

// TestFaultMatrixBinlog is the same matrix in the binlog phase: the fault
// is held while the workload changes the table, then lifted.
func TestFaultMatrixBinlog(t *testing.T) {
	for i, mf := range matrixFaults {
		t.Run(mf.name, func(t *testing.T) {
			srv := harness.StartSim(t, dorissim.Config{})
			table := "binlog_" + mf.name
			harness.CreateTable(t, srv, db, table, harness.TableOpts{Buckets: 2})
			out := &held{}
			f := newFixture(t, srv, table, harness.NewWorkload(srv, db, table, uint64(200+i)), matrixCollector(out, 10*time.Millisecond))
			in := harness.InputYAML(srv, db+"."+table, "scan_mode: latest", "batch_size: 20")
			f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: mf.resources(srv), Logs: f.logs}, f.col)
			harness.WaitCheckpoint(t, f.run, harness.CheckpointKey(db, table))
			f.steps(t, 20)
			done := make(chan struct{})
			go func() { defer close(done); mf.run(srv, out) }()
			f.steps(t, 20)
			<-done
			f.steps(t, 10)
			f.assertRecovered(t, 120*time.Second)
		})
	}
}
