package dorissim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

const (
	bankAccounts = 10
	bankOpening  = 1000
	bankReaders  = 8
	bankWriteFor = 3 * time.Second
)

// bankWriter moves money between accounts, two or three accounts per
// transaction, so every commit keeps the total and writes a known number of
// records. expected maps each commit TSO to its DETAIL record count.
type bankWriter struct {
	s        *Server
	balances []int64
	mu       sync.Mutex
	expected map[int64]int
}

func (w *bankWriter) seed() error {
	tx := w.s.Store().Begin()
	w.balances = make([]int64, bankAccounts)
	for id := range w.balances {
		w.balances[id] = bankOpening
		if err := tx.Insert("bank", "acct", []any{int64(id), int64(bankOpening)}); err != nil {
			tx.Rollback()
			return fmt.Errorf("seed account %d: %w", id, err)
		}
	}
	return w.commit(tx, bankAccounts)
}

func (w *bankWriter) commit(tx *storage.Txn, records int) error {
	tso, err := tx.Commit()
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	w.mu.Lock()
	w.expected[tso.Value] = records
	w.mu.Unlock()
	return nil
}

// transfer debits one account and credits one or two others in one txn;
// each touched key gives an UPDATE_BEFORE and an UPDATE_AFTER record.
func (w *bankWriter) transfer(rng *rand.Rand) error {
	perm := rng.Perm(bankAccounts)
	touched := perm[:2+rng.IntN(2)]
	amount := int64(1 + rng.IntN(20))
	tx := w.s.Store().Begin()
	w.balances[touched[0]] -= amount * int64(len(touched)-1)
	for _, id := range touched[1:] {
		w.balances[id] += amount
	}
	for _, id := range touched {
		if err := tx.Insert("bank", "acct", []any{int64(id), w.balances[id]}); err != nil {
			tx.Rollback()
			return fmt.Errorf("transfer on account %d: %w", id, err)
		}
	}
	return w.commit(tx, 2*len(touched))
}

// run commits transfers until ctx ends, pausing between commits so the
// binlog stays a size the readers re-read many times under -race.
func (w *bankWriter) run(ctx context.Context) error {
	rng := rand.New(rand.NewPCG(1, 2))
	pause := time.NewTicker(time.Millisecond)
	defer pause.Stop()
	for {
		if err := w.transfer(rng); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-pause.C:
		}
	}
}

// binlogRecord is one DETAIL row of the bank table.
type binlogRecord struct {
	id, bal, tso int64
	op           int8
}

// checkGroups asserts that every commit in a window is whole: its records
// form UPDATE_BEFORE/UPDATE_AFTER pairs per key that keep the total, or it
// is the all-insert seed, and a TSO seen before has the same record count.
func checkGroups(recs []binlogRecord, seen map[int64]int) error {
	groups := map[int64][]binlogRecord{}
	for _, r := range recs {
		groups[r.tso] = append(groups[r.tso], r)
	}
	for tso, g := range groups {
		if prev, ok := seen[tso]; ok && prev != len(g) {
			return fmt.Errorf("TSO %d: %d records, earlier window had %d", tso, len(g), prev)
		}
		seen[tso] = len(g)
		if err := checkGroup(g); err != nil {
			return fmt.Errorf("TSO %d: %w", tso, err)
		}
	}
	return nil
}

func checkGroup(g []binlogRecord) error {
	if g[0].op == 0 {
		if len(g) != bankAccounts {
			return fmt.Errorf("seed commit with %d of %d inserts", len(g), bankAccounts)
		}
		return nil
	}
	var delta int64
	pairs := map[int64]int{}
	for _, r := range g {
		switch r.op {
		case 2:
			delta -= r.bal
			pairs[r.id]++
		case 3:
			delta += r.bal
			pairs[r.id] += 10
		default:
			return fmt.Errorf("op %d in a transfer", r.op)
		}
	}
	for id, p := range pairs {
		if p != 11 {
			return fmt.Errorf("account %d without a before/after pair (%d records)", id, len(g))
		}
	}
	if delta != 0 || len(pairs) < 2 || len(pairs) > 3 {
		return fmt.Errorf("half a transfer: %d accounts, total moved by %d", len(pairs), delta)
	}
	return nil
}

type bankReader struct {
	fs    *flightSession
	from  string
	seen  map[int64]int
	reads int
}

func (r *bankReader) window() error {
	end := time.Now().UTC().Truncate(time.Second).Format(time.DateTime)
	q := "SELECT id, bal, __DORIS_BINLOG_TSO__, __DORIS_BINLOG_OP__ FROM bank.acct@incr('startTimestamp' = '" + r.from +
		"', 'endTimestamp' = '" + end + "', 'incrementType' = 'DETAIL')"
	var recs []binlogRecord
	err := r.fs.query(q, func(rec arrow.RecordBatch) error {
		id, ok1 := rec.Column(0).(*array.Int64)
		bal, ok2 := rec.Column(1).(*array.Int64)
		tso, ok3 := rec.Column(2).(*array.Int64)
		op, ok4 := rec.Column(3).(*array.Int8)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return fmt.Errorf("window schema %s", rec.Schema())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			recs = append(recs, binlogRecord{id: id.Value(i), bal: bal.Value(i), tso: tso.Value(i), op: op.Value(i)})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("window to %s: %w", end, err)
	}
	r.reads++
	return checkGroups(recs, r.seen)
}

func (r *bankReader) snapshot() error {
	var total, rows int64
	err := r.fs.query("SELECT id, bal FROM bank.acct", func(rec arrow.RecordBatch) error {
		bal, ok := rec.Column(1).(*array.Int64)
		if !ok {
			return fmt.Errorf("bal column is %s, want int64", rec.Column(1).DataType())
		}
		for i := 0; i < bal.Len(); i++ {
			total += bal.Value(i)
		}
		rows += rec.NumRows()
		return nil
	})
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if rows != bankAccounts || total != bankAccounts*bankOpening {
		return fmt.Errorf("snapshot saw %d accounts holding %d, want %d holding %d", rows, total, bankAccounts, bankAccounts*bankOpening)
	}
	return nil
}

func (r *bankReader) run(ctx context.Context, done <-chan struct{}) error {
	for {
		if err := r.window(); err != nil {
			return err
		}
		if err := r.snapshot(); err != nil {
			return err
		}
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
	}
}

// TestAcceptanceConcurrentReadersSeeWholeTransactions runs eight Flight
// readers, each with its own client, against a writer committing transfers
// for a few seconds: no DETAIL window may show part of a transaction, and
// every snapshot must see the constant total.
func TestAcceptanceConcurrentReadersSeeWholeTransactions(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s, "CREATE DATABASE bank",
		"CREATE TABLE bank.acct (id BIGINT NOT NULL, bal BIGINT NOT NULL) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 4 "+
			`PROPERTIES ("enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW", `+
			`"binlog.need_historical_value" = "true")`)
	from := time.Now().UTC().Add(-time.Second).Truncate(time.Second).Format(time.DateTime)
	w := &bankWriter{s: s, expected: map[int64]int{}}
	if err := w.seed(); err != nil {
		t.Fatal(err)
	}
	readers := make([]*bankReader, bankReaders)
	for i := range readers {
		fs := newFlightSession(t, s)
		if err := fs.exec("SET time_zone = 'UTC'"); err != nil {
			t.Fatalf("reader %d set time_zone: %v", i, err)
		}
		readers[i] = &bankReader{fs: fs, from: from, seen: map[int64]int{}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	writeCtx, stopWriting := context.WithTimeout(ctx, bankWriteFor)
	defer stopWriting()
	done := make(chan struct{})
	errs := make(chan error, bankReaders+1)
	var wg sync.WaitGroup
	for i, r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.run(ctx, done); err != nil {
				errs <- fmt.Errorf("reader %d: %w", i, err)
			}
		}()
	}
	writeErr := w.run(writeCtx)
	close(done)
	wg.Wait()
	close(errs)
	if writeErr != nil {
		t.Fatalf("writer: %v", writeErr)
	}
	for err := range errs {
		t.Error(err)
	}
	checkAgainstWriter(t, w, readers)
}

// checkAgainstWriter compares every commit a reader saw with what the
// writer committed under that TSO.
func checkAgainstWriter(t *testing.T, w *bankWriter, readers []*bankReader) {
	t.Helper()
	distinct := map[int64]bool{}
	for i, r := range readers {
		if r.reads == 0 {
			t.Errorf("reader %d read no window", i)
		}
		for tso, n := range r.seen {
			distinct[tso] = true
			if want, ok := w.expected[tso]; !ok || want != n {
				t.Errorf("reader %d: TSO %d shows %d records, writer committed %d (known %v)", i, tso, n, want, ok)
			}
		}
	}
	t.Logf("writer committed %d transactions; readers saw %d of them in %d windows", len(w.expected), len(distinct), totalReads(readers))
	if len(distinct) < 2 {
		t.Errorf("readers saw %d commits; the windows never covered the writer's transfers", len(distinct))
	}
}

func totalReads(readers []*bankReader) int {
	n := 0
	for _, r := range readers {
		n += r.reads
	}
	return n
}

// TestAcceptanceBankCheckerRejectsHalfTransactions makes sure the window
// checker of the concurrency test can fail: a transfer missing a record, a
// changed record count for a seen TSO, or a partial seed are all reported.
func TestAcceptanceBankCheckerRejectsHalfTransactions(t *testing.T) {
	whole := []binlogRecord{{id: 1, bal: 10, tso: 7, op: 2}, {id: 1, bal: 5, tso: 7, op: 3},
		{id: 2, bal: 10, tso: 7, op: 2}, {id: 2, bal: 15, tso: 7, op: 3}}
	if err := checkGroups(whole, map[int64]int{}); err != nil {
		t.Fatalf("whole transfer rejected: %v", err)
	}
	cases := map[string]struct {
		recs []binlogRecord
		seen map[int64]int
	}{
		"missing after-image": {whole[:3], map[int64]int{}},
		"missing account":     {whole[:2], map[int64]int{}},
		"count changed":       {whole, map[int64]int{7: 6}},
		"partial seed":        {[]binlogRecord{{id: 1, bal: 1000, tso: 3, op: 0}}, map[int64]int{}},
		"unbalanced": {[]binlogRecord{{id: 1, bal: 10, tso: 7, op: 2}, {id: 1, bal: 5, tso: 7, op: 3},
			{id: 2, bal: 10, tso: 7, op: 2}, {id: 2, bal: 14, tso: 7, op: 3}}, map[int64]int{}},
	}
	for name, tc := range cases {
		if err := checkGroups(tc.recs, tc.seen); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
