package input

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// A batching policy with a smaller count caps the rows of an emitted batch;
// a checkpoint store exists only with a checkpoint_cache.
func TestNewReaderRowsPerBatchAndStore(t *testing.T) {
	res := service.MockResources(service.MockResourcesOptAddCache(cpCache))
	for _, tc := range []struct {
		count, want int
	}{{0, 1000}, {10, 10}, {5000, 1000}} {
		r, err := newReader(&Config{BatchSize: 1000, CheckpointLimit: 1}, service.BatchPolicy{Count: tc.count}, res)
		if err != nil {
			t.Fatal(err)
		}
		if r.maxRows != tc.want {
			t.Errorf("batching count %d: %d rows per batch, want %d", tc.count, r.maxRows, tc.want)
		}
		if r.store != nil {
			t.Errorf("a reader without checkpoint_cache has a store")
		}
		if err := r.save(context.Background(), checkpoint.New()); err != nil {
			t.Errorf("saving without a store: %v", err)
		}
	}
	r, err := newReader(&Config{BatchSize: 1, CheckpointLimit: 1, CheckpointCache: cpCache, CheckpointKey: "k"}, service.BatchPolicy{}, res)
	if err != nil || r.store == nil || r.store.Key() != "k" {
		t.Fatalf("with checkpoint_cache: %+v, %v; want a store on key k", r, err)
	}
}

// readerEnv is a snapshot-mode reader of d.a (rows 1..3, one per batch)
// keeping its checkpoint in cpCache.
func readerEnv(t *testing.T) (*simEnv, func() *reader) {
	e := newSimEnv(t, dorissim.Config{}, &Config{Selection: fixedSelection("d.a"), ScanMode: "snapshot", BatchSize: 1},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL, "INSERT INTO d.a VALUES (1), (2), (3)")
	e.conf.CheckpointCache, e.conf.CheckpointKey = cpCache, "k"
	e.conf.BatchSize = 1
	newR := func() *reader {
		r, err := newReader(e.conf, service.BatchPolicy{}, e.res)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close(context.Background()) })
		return r
	}
	return e, newR
}

// readAll reads batches, acking each with ackErr(i), until ReadBatch says
// something other than a batch.
func readAll(t *testing.T, r *reader, ackErr func(i int) error) (rows int, end error) {
	t.Helper()
	ctx := testCtx(t)
	for i := 0; ; i++ {
		batch, ack, err := r.ReadBatch(ctx)
		if err != nil {
			return rows, err
		}
		rows += len(batch)
		if err := ack(ctx, ackErr(i)); err != nil {
			t.Fatalf("ack %d: %v", i, err)
		}
	}
}

func noAckErr(int) error { return nil }

// A snapshot reads every row and ends the input; its position is stored,
// so a restarted input finds nothing left to read.
func TestReaderReadsASnapshotAndResumesDone(t *testing.T) {
	_, newR := readerEnv(t)
	r := newR()
	if _, _, err := r.ReadBatch(testCtx(t)); !errors.Is(err, service.ErrNotConnected) {
		t.Fatalf("ReadBatch before Connect: %v, want ErrNotConnected", err)
	}
	if err := r.Connect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	run := r.run
	if err := r.Connect(testCtx(t)); err != nil || r.run != run {
		t.Fatalf("Connect during a run: %v, run replaced %v; want a no-op", err, r.run != run)
	}
	rows, end := readAll(t, r, noAckErr)
	if rows != 3 || !errors.Is(end, service.ErrEndOfInput) {
		t.Fatalf("read %d rows, then %v; want 3 and the end of input", rows, end)
	}
	again := newR()
	if err := again.Connect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if rows, end := readAll(t, again, noAckErr); rows != 0 || !errors.Is(end, service.ErrEndOfInput) {
		t.Fatalf("after a finished snapshot a restart read %d rows, then %v; want none and the end", rows, end)
	}
}

// A nack (auto_replay_nacks: false) ends the run; the next Connect reads
// again from the last committed position, so no row is lost.
func TestReaderRewindsAfterANack(t *testing.T) {
	_, newR := readerEnv(t)
	r := newR()
	if err := r.Connect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	rejected := errors.New("output refused")
	rows, end := readAll(t, r, func(i int) error {
		if i == 1 {
			return rejected
		}
		return nil
	})
	if !errors.Is(end, service.ErrNotConnected) || !r.rewound || rows < 2 {
		t.Fatalf("after a nack: %d rows, %v, rewound %v; want ErrNotConnected and a rewind", rows, end, r.rewound)
	}
	if err := r.Connect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if r.rewound {
		t.Fatalf("the rewind flag outlived the run it was for")
	}
	rows, end = readAll(t, r, noAckErr)
	// A snapshot's position moves by whole tablets: d.a's one tablet was
	// not done, so all of it comes again.
	if rows != 3 || !errors.Is(end, service.ErrEndOfInput) {
		t.Fatalf("after the rewind %d rows, then %v; want the tablet's 3 again, then the end", rows, end)
	}
}

// A condition no reconnect can fix stops the input for good, and Connect
// keeps saying why rather than dialling again; any other failure is retried.
func TestReaderFatalIsSticky(t *testing.T) {
	e, newR := readerEnv(t)
	e.conf.ScanMode = "earliest"
	r := newR()
	err := r.Connect(testCtx(t))
	if !isFatal(err) {
		t.Fatalf("Connect = %v, want fatal", err)
	}
	e.srv.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: time.Minute})
	if again := r.Connect(testCtx(t)); again != err {
		t.Fatalf("second Connect = %v, want the same fatal error without dialling", again)
	}
	down := newR()
	if err := down.Connect(testCtx(t)); err == nil || isFatal(err) || down.fatal != nil {
		t.Fatalf("Connect with the FE down: %v, want a retryable error", err)
	}
}

// endRun turns why a run stopped into what Benthos does next.
func TestReaderEndRun(t *testing.T) {
	log, lines := captureLogger(t)
	stopped := errors.New("flight session lost")
	fatal := fatalf("binlog expired")
	unconvertible := fmt.Errorf("binlog window of d.t: %w", doris.Permanent(errors.New("row 3 of d.t: malformed Arrow data")))
	for _, tc := range []struct {
		name   string
		cause  error
		want   error
		fatal  bool
		warned string
	}{
		{"finished", nil, service.ErrEndOfInput, false, ""},
		{"rewound", delivery.ErrRewind, service.ErrNotConnected, false, "re-reading from the last committed checkpoint"},
		{"cancelled", context.Canceled, service.ErrNotConnected, false, ""},
		{"failed", stopped, service.ErrNotConnected, false, "Reading stopped, reconnecting: flight session lost"},
		{"fatal", fatal, fatal, true, ""},
		// Rows the merge could not convert: reconnecting reads them again,
		// so the input stops, naming them, rather than loop for ever.
		{"permanent", unconvertible, unconvertible, true, ""},
	} {
		del, err := delivery.New(delivery.Options[*checkpoint.State]{Limit: 1, Equal: checkpoint.Equal,
			Save: func(context.Context, *checkpoint.State) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		r := &reader{log: log, del: del}
		r.run = del.Start(false, func(context.Context, *delivery.Run[*checkpoint.State]) error { return tc.cause })
		r.conn = &conn{pool: newSessionPool[*flight.Client](1, nil)}
		run := r.run
		before := len(lines.Lines("WARN", ""))
		got := r.endRun(run)
		if !errors.Is(got, tc.want) {
			t.Errorf("%s: endRun = %v, want %v", tc.name, got, tc.want)
		}
		if r.run != nil || !r.conn.pool.closed {
			t.Errorf("%s: the ended run is still current or its connection open", tc.name)
		}
		if (r.fatal != nil) != tc.fatal {
			t.Errorf("%s: sticky fatal %v, want %v", tc.name, r.fatal, tc.fatal)
		}
		if r.rewound != errors.Is(tc.cause, delivery.ErrRewind) {
			t.Errorf("%s: rewound %v", tc.name, r.rewound)
		}
		warned := lines.Lines("WARN", "")[before:]
		if tc.warned == "" && len(warned) != 0 || tc.warned != "" && (len(warned) != 1 || !strings.Contains(warned[0], tc.warned)) {
			t.Errorf("%s: warnings %q, want %q", tc.name, warned, tc.warned)
		}
	}
}

// Close ends a run that is going on and releases it: the input is then
// not connected, and a later Close is harmless.
func TestReaderCloseStopsTheRun(t *testing.T) {
	_, newR := readerEnv(t)
	r := newR()
	if err := r.Connect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	run, c := r.run, r.conn
	if err := r.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if r.run != nil || !c.pool.closed {
		t.Fatalf("after Close the run is current %v, its connection closed %v", r.run != nil, c.pool.closed)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- run.Err() }()
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the closed run stopped with %v, want context.Canceled", err)
		}
	case <-testCtx(t).Done():
		t.Fatalf("the run still goes on after Close")
	}
	if _, _, err := r.ReadBatch(testCtx(t)); !errors.Is(err, service.ErrNotConnected) {
		t.Fatalf("ReadBatch after Close: %v, want ErrNotConnected", err)
	}
	if err := r.Close(testCtx(t)); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}
