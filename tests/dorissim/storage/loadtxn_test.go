package storage

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func newLoadStore(t *testing.T, clock *fakeClock, opts Options) *Store {
	t.Helper()
	opts.Clock = clock.Now
	s := New(opts)
	if err := s.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, ordersDDL)
	return s
}

func wantState(t *testing.T, s *Store, label string, want TxnStatus) {
	t.Helper()
	if got, err := s.LabelState("db", label); err != nil || got != want {
		t.Errorf("label %s: state %s (%v), want %s", label, got, err, want)
	}
}

// TestLabelLifecycle checks label states, reuse after abort, expiry after
// LabelKeep, and the ExistingJobStatus of each state.
func TestLabelLifecycle(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newLoadStore(t, clock, Options{LabelKeep: time.Hour})
	lt, err := s.BeginLoad("db", "l1")
	if err != nil {
		t.Fatal(err)
	}
	wantState(t, s, "l1", TxnPrepare)
	_, err = s.BeginLoad("db", "l1")
	var lu *LabelUsedError
	if !errors.As(err, &lu) || lu.JobStatus != "RUNNING" || lu.TxnID != lt.TxnID() {
		t.Fatalf("label of a running load: %v", err)
	}
	var generic *Error
	if !errors.As(err, &generic) || generic.Name != "LABEL_ALREADY_EXISTS" {
		t.Errorf("LabelUsedError does not unwrap to LABEL_ALREADY_EXISTS: %v", err)
	}
	if _, err := lt.Run("orders", LoadRequest{Rows: [][]*string{strs("1", "a", "1")}}); err != nil {
		t.Fatal(err)
	}
	wantState(t, s, "l1", TxnVisible)
	_, err = s.BeginLoad("db", "l1")
	if !errors.As(err, &lu) || lu.JobStatus != "FINISHED" {
		t.Fatalf("label of a finished load: %v", err)
	}
	clock.Set(at("2026-09-14 11:00:01"))
	wantState(t, s, "l1", TxnUnknown)
	if _, err := s.BeginLoad("db", "l1"); err != nil {
		t.Errorf("label after LabelKeep: %v", err)
	}
	aborted, _ := s.BeginLoad("db", "l2")
	aborted.Abort("client went away")
	wantState(t, s, "l2", TxnAborted)
	if _, err := s.BeginLoad("db", "l2"); err != nil {
		t.Errorf("reuse of an aborted label: %v", err)
	}
	if _, err := s.BeginLoad("db", "bad label"); err == nil {
		t.Error("a label with a space was accepted")
	}
	if _, err := s.LabelState("nodb", "l1"); err == nil {
		t.Error("LabelState of an unknown database")
	}
}

// TestTwoPhaseCommitStorage checks that pre-committed rows are invisible,
// commit applies them under one new TSO, and the txn manager aborts a
// pre-committed txn after PrecommitTimeout.
func TestTwoPhaseCommitStorage(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := newLoadStore(t, clock, Options{PrecommitTimeout: time.Minute})
	res, err := s.Load(ctxBG(), "db", "orders", LoadRequest{Label: "p1", TwoPhaseCommit: true,
		Rows: [][]*string{strs("1", "a", "1"), strs("2", "b", "2")}})
	if err != nil || res.Loaded != 2 || res.TSO.Value != 0 {
		t.Fatalf("pre-commit: %+v %v", res, err)
	}
	equalStrings(t, "before commit", scanRendered(t, s, "orders"), nil)
	wantState(t, s, "p1", TxnPrecommitted)
	clock.Set(at("2026-09-14 10:00:30"))
	out, err := s.Txn2PC("db", 0, "p1", "commit")
	if err != nil || out.TSO.PhysicalMs != at("2026-09-14 10:00:30").UnixMilli() {
		t.Fatalf("commit by label: %+v %v", out, err)
	}
	equalStrings(t, "after commit", scanRendered(t, s, "orders"), []string{"1|a|1.00", "2|b|2.00"})
	if _, err := s.Txn2PC("db", res.TxnID, "", "commit"); err == nil {
		t.Error("second commit succeeded")
	}
	res2, _ := s.Load(ctxBG(), "db", "orders", LoadRequest{Label: "p2", TwoPhaseCommit: true, Rows: [][]*string{strs("3", "c", "3")}})
	clock.Set(at("2026-09-14 10:02:00"))
	wantState(t, s, "p2", TxnAborted)
	_, err = s.Txn2PC("db", res2.TxnID, "", "commit")
	wantErrText(t, err, "is already aborted. abort reason: timeout by txn manager")
	equalStrings(t, "after timeout", scanRendered(t, s, "orders"), []string{"1|a|1.00", "2|b|2.00"})
	_, err = s.Txn2PC("other", res2.TxnID, "", "abort")
	wantErrText(t, err, "unknown database, database=other")
}

// TestConcurrentLoadsOneLabel races loads of one label: exactly one wins.
func TestConcurrentLoadsOneLabel(t *testing.T) {
	s := newLoadStore(t, newFakeClock(at("2026-09-14 10:00:00")), Options{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Load(ctxBG(), "db", "orders", LoadRequest{Label: "race", Rows: [][]*string{strs("1", "a", "1")}}); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d loads of one label succeeded, want 1", won)
	}
}

// TestGroupCommitBatch checks that loads join one internal txn until the
// batch is full, then commit together; a bad load fails alone.
func TestGroupCommitBatch(t *testing.T) {
	clock := newFakeClock(at("2026-09-14 10:00:00"))
	s := New(Options{Clock: clock.Now})
	if err := s.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, `CREATE TABLE g (id BIGINT, v VARCHAR(8)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1
PROPERTIES ("group_commit_interval_ms" = "3600000", "group_commit_data_bytes" = "12")`)
	a, err := s.GroupCommitLoad("db", "g", LoadRequest{Rows: [][]*string{strs("1", "a")}}, GroupCommitAsync)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GroupCommitLoad("db", "g", LoadRequest{Rows: [][]*string{strs("x", "a")}}, GroupCommitAsync); err == nil {
		t.Error("a bad row was accepted")
	}
	equalStrings(t, "before the batch is full", scanRendered(t, s, "g"), nil)
	b, err := s.GroupCommitLoad("db", "g", LoadRequest{Rows: [][]*string{strs("2", "b"), strs("3", "c")}}, GroupCommitSync)
	if err != nil || b.TxnID != a.TxnID || b.Label != a.Label {
		t.Fatalf("second load %+v (first %+v): %v", b, a, err)
	}
	equalStrings(t, "after the batch", scanRendered(t, s, "g"), []string{"1|a", "2|b", "3|c"})
	c, err := s.GroupCommitLoad("db", "g", LoadRequest{Rows: [][]*string{strs("4", "d")}}, GroupCommitAsync)
	if err != nil || c.TxnID == a.TxnID {
		t.Errorf("a load after the commit joined the old batch: %+v %v", c, err)
	}
}

func ctxBG() context.Context { return context.Background() }
