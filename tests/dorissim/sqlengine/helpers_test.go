package sqlengine

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// testClock is a settable clock for storage.Options.Clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func newTestEngine(t testing.TB, clock *testClock) (*Engine, *storage.Store) {
	t.Helper()
	opts := storage.Options{VisibleWaitTimeout: 2 * time.Second}
	if clock != nil {
		opts.Clock = clock.Now
	}
	store := storage.New(opts)
	eng, err := New(Config{Store: store, User: "root", Password: "secret", Frontend: func() Frontend {
		return Frontend{Host: "127.0.0.1", HTTPPort: 8030, QueryPort: 9030, RPCPort: 9020, EditLogPort: 9010, ArrowFlightSQLPort: 29747}
	}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng, store
}

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// mustExec runs a statement and fails the test on error.
func mustExec(t *testing.T, s *Session, q string) *Result {
	t.Helper()
	res, err := s.Query(testCtx(t), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if _, err := readAll(res); err != nil {
		t.Fatalf("%s: reading result: %v", q, err)
	}
	return res
}

// mustRows runs a query and returns its columns and rows.
func mustRows(t *testing.T, s *Session, q string) ([]ResultColumn, [][]any) {
	t.Helper()
	res, err := s.Query(testCtx(t), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	rows, err := readAll(res)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Columns, rows
}

func readAll(res *Result) ([][]any, error) {
	defer res.Close()
	var rows [][]any
	for {
		row, err := res.Next()
		if errors.Is(err, io.EOF) {
			return rows, res.Close()
		}
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
}

// queryErr runs a statement that must fail and returns its error.
func queryErr(t *testing.T, s *Session, q string) *storage.Error {
	t.Helper()
	res, err := s.Query(testCtx(t), q)
	if err == nil {
		_, err = readAll(res)
	}
	if err == nil {
		t.Fatalf("%s: expected an error", q)
	}
	var se *storage.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s: error %T is not *storage.Error: %v", q, err, err)
	}
	return se
}

// textRows renders rows with storage.FormatValue for compact comparisons.
func textRows(cols []ResultColumn, rows [][]any) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			if v == nil {
				out[i][j] = "NULL"
				continue
			}
			out[i][j] = storage.FormatValue(cols[j].Type, v)
		}
	}
	return out
}
