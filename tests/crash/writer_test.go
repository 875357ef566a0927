package crash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// multiTableShare is the share of steps that are one transaction over two
// or three tables (BEGIN; inserts into each; COMMIT).
const multiTableShare = 4 // in 10

// txnRecord is a committed multi-table transaction: one key it inserted
// into each of its tables. The workload never reuses a key, so the insert
// events of these keys are the transaction's events in the output.
type txnRecord struct {
	keys map[string]int64 // table -> a key the transaction inserted
}

// writer applies seeded workload steps to the live tables from one
// goroutine (a Workload is not safe for concurrent use), pausing between
// steps so that the changes spread over many binlog windows. Tables join
// (add) and leave (retire) while it runs.
type writer struct {
	db    *sql.DB // the simulator's MySQL port, for multi-statement transactions
	rng   *rand.Rand
	pause time.Duration // average pause between steps

	stepMu sync.Mutex // held during a step, so that retire waits for it
	mu     sync.Mutex
	loads  []*harness.Workload
	txns   []txnRecord
	steps  int
	err    error

	cancel context.CancelFunc
	done   chan struct{}
}

func newWriter(srv *dorissim.Server, loads []*harness.Workload, seed uint64, pause time.Duration) (*writer, error) {
	conn, err := sql.Open("mysql", "root:@tcp("+srv.MySQLAddr()+")/")
	if err != nil {
		return nil, fmt.Errorf("opening the simulator's MySQL port: %w", err)
	}
	return &writer{db: conn, loads: slices.Clone(loads), rng: rand.New(rand.NewPCG(seed, seed+1)), pause: pause}, nil
}

// add makes wl part of the workload from the next step on.
func (w *writer) add(wl *harness.Workload) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.loads = append(w.loads, wl)
}

// retire takes table out of the workload; once it returns no step writes
// to it any more.
func (w *writer) retire(table string) {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.loads = slices.DeleteFunc(w.loads, func(wl *harness.Workload) bool { return wl.Table() == table })
}

// start runs steps until stop (or maxSteps); a failed step ends the writer
// and is reported by stop.
func (w *writer) start(maxSteps int) {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		for i := 0; i < maxSteps; i++ {
			if err := w.step(); err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
				return
			}
			d := time.Duration(w.rng.Int64N(int64(2*w.pause) + 1))
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
	}()
}

// step applies one change to one table, or one transaction to several. A
// step is never cut short: the workload has already noted its change, and
// a half-applied step would only blur the figures.
func (w *writer) step() error {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	w.mu.Lock()
	loads := slices.Clone(w.loads)
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	if len(loads) >= 2 && w.rng.IntN(10) < multiTableShare {
		err = w.multiTable(ctx, loads)
	} else {
		err = loads[w.rng.IntN(len(loads))].Step(ctx)
	}
	if err == nil {
		w.mu.Lock()
		w.steps++
		w.mu.Unlock()
	}
	return err
}

// multiTable commits one transaction that inserts into two or three of
// the tables, on one connection of the MySQL port.
func (w *writer) multiTable(ctx context.Context, loads []*harness.Workload) error {
	n := min(len(loads), 2+w.rng.IntN(2))
	picked := make([]*harness.Workload, 0, n)
	for _, i := range w.rng.Perm(len(loads))[:n] {
		picked = append(picked, loads[i])
	}
	rec := txnRecord{keys: map[string]int64{}}
	stmts := []string{"BEGIN"}
	for _, wl := range picked {
		rec.keys[wl.Table()] = wl.NextID()
		stmts = append(stmts, wl.InsertStatement(1+w.rng.IntN(2)))
	}
	stmts = append(stmts, "COMMIT")
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("multi-table transaction: %w", err)
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
			return fmt.Errorf("multi-table transaction, %q: %w", s, err)
		}
	}
	w.mu.Lock()
	w.txns = append(w.txns, rec)
	w.mu.Unlock()
	return nil
}

// stop ends the writer, waiting (bounded) for the step in progress.
func (w *writer) stop() (int, error) {
	if w.cancel == nil {
		return 0, nil
	}
	w.cancel()
	select {
	case <-w.done:
	case <-time.After(45 * time.Second):
		return w.stepsDone(), errors.New("writer did not stop within 45s")
	}
	_ = w.db.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.steps, w.err
}

func (w *writer) stepsDone() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.steps
}

// transactions returns the multi-table transactions committed so far.
func (w *writer) transactions() []txnRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.txns)
}
