package storage

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

func at(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.UTC)
	if err != nil {
		panic(err)
	}
	return t
}

const ordersDDL = `CREATE TABLE orders (
    order_id BIGINT,
    status   VARCHAR(16),
    amount   DECIMAL(10, 2)
)
UNIQUE KEY(order_id)
DISTRIBUTED BY HASH(order_id) BUCKETS 8
PROPERTIES (
    "enable_unique_key_merge_on_write" = "true",
    "binlog.enable" = "true",
    "binlog.format" = "ROW",
    "binlog.need_historical_value" = "true"
);`

// newStoreWith creates a store with database "db" and the given tables.
func newStoreWith(t *testing.T, clock *fakeClock, ddls ...string) *Store {
	t.Helper()
	opts := Options{}
	if clock != nil {
		opts.Clock = clock.Now
	}
	s := New(opts)
	if err := s.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	for _, ddl := range ddls {
		mustCreate(t, s, ddl)
	}
	return s
}

func mustCreate(t *testing.T, s *Store, ddl string) {
	t.Helper()
	ct, err := ParseCreateTable(ddl)
	if err != nil {
		t.Fatalf("parse %q: %v", ddl, err)
	}
	if err := s.CreateTable("db", ct.Def, ct.IfNotExists); err != nil {
		t.Fatalf("create %q: %v", ddl, err)
	}
}

// exec runs fn in one committed transaction.
func exec(t *testing.T, s *Store, fn func(tx *Txn) error) TSO {
	t.Helper()
	tx := s.Begin()
	if err := fn(tx); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	tso, err := tx.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return tso
}

func insertRows(t *testing.T, s *Store, table string, rows ...[]any) TSO {
	t.Helper()
	return exec(t, s, func(tx *Txn) error {
		for _, r := range rows {
			if err := tx.Insert("db", table, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func deleteRow(t *testing.T, s *Store, table string, row []any) TSO {
	t.Helper()
	return exec(t, s, func(tx *Txn) error { return tx.Delete("db", table, row) })
}

func order(id int64, status, amount string) []any { return []any{id, status, amount} }

func drain(t *testing.T, it RowIter) [][]any {
	t.Helper()
	defer it.Close()
	var out [][]any
	for {
		r, err := it.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// render formats rows as "v1|v2|..." using the column types.
func render(cols []Column, rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, v := range r {
			parts[j] = FormatValue(cols[j].Type, v)
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

// project keeps the named columns of rendered incr output.
func project(cols []Column, rows [][]any, names ...string) []string {
	idx := make([]int, len(names))
	for i, n := range names {
		idx[i] = -1
		for j, c := range cols {
			if c.Name == n {
				idx[i] = j
			}
		}
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(idx))
		for j, k := range idx {
			parts[j] = FormatValue(cols[k].Type, r[k])
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

func incr(t *testing.T, s *Store, table string, params map[string]string) ([]Column, [][]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cols, it, err := s.Incr(ctx, "db", table, IncrParams{Params: params})
	if err != nil {
		t.Fatalf("incr %v: %v", params, err)
	}
	return cols, drain(t, it)
}

func incrErr(t *testing.T, s *Store, table string, params map[string]string) *Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err := s.Incr(ctx, "db", table, IncrParams{Params: params})
	if err == nil {
		t.Fatalf("incr %v: expected an error", params)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("incr %v: error %T is not *Error: %v", params, err, err)
	}
	return e
}

func window(start, end, typ string) map[string]string {
	m := map[string]string{}
	if start != "" {
		m["startTimestamp"] = start
	}
	if end != "" {
		m["endTimestamp"] = end
	}
	if typ != "" {
		m["incrementType"] = typ
	}
	return m
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func wantErrText(t *testing.T, err error, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected error containing %q, got nil", text)
	}
	if !strings.Contains(err.Error(), text) {
		t.Fatalf("expected error containing %q, got %q", text, err.Error())
	}
}
