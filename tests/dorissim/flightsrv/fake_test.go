package flightsrv

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// fakeEngine answers a handful of statements so that the servers can be
// tested without the SQL engine.
type fakeEngine struct {
	mu       sync.Mutex
	sessions int
	open     atomic.Int64 // open results
}

func (e *fakeEngine) Authenticate(u, p string) bool { return u == "root" && p == "secret" }

func (e *fakeEngine) NewSession(user string) Session {
	e.mu.Lock()
	e.sessions++
	e.mu.Unlock()
	return &fakeSession{e: e, vars: map[string]string{}}
}

type fakeSession struct {
	e    *fakeEngine
	vars map[string]string
}

func (s *fakeSession) Close() {}

func (s *fakeSession) Query(ctx context.Context, sql string) (Result, error) {
	f := strings.Fields(strings.ToLower(sql))
	switch {
	case f[0] == "set":
		s.vars[f[1]] = f[3]
		return s.e.result(nil, nil), nil
	case f[0] == "getvar":
		return s.e.result([]storage.Column{{Name: "v", Type: storage.Type{Kind: storage.String}, Nullable: true}},
			[][]any{{s.vars[f[1]]}}), nil
	case f[0] == "alltypes":
		return s.e.result(allTypesColumns(), allTypesRows()), nil
	case f[0] == "ints":
		n, _ := strconv.Atoi(f[1])
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{int64(i)}
		}
		return s.e.result([]storage.Column{{Name: "id", Type: storage.Type{Kind: storage.BigInt}}}, rows), nil
	case f[0] == "fail":
		code, _ := strconv.Atoi(f[1])
		name := map[int]string{5100: "ERR_INCR_WINDOW_NOT_READY", 5101: "ERR_INCR_VISIBLE_WAIT_TIMEOUT"}[code]
		return nil, &storage.Error{Code: code, Name: name, Message: fmt.Sprintf("%s: reason=X, simulated %d", name, code)}
	case f[0] == "badvalue":
		return s.e.result([]storage.Column{{Name: "id", Type: storage.Type{Kind: storage.BigInt}}}, [][]any{{"not an int"}}), nil
	}
	return nil, &storage.Error{Code: 1105, Message: "Unknown statement " + sql}
}

func (e *fakeEngine) result(cols []storage.Column, rows [][]any) *fakeResult {
	e.open.Add(1)
	return &fakeResult{e: e, cols: cols, rows: rows}
}

type fakeResult struct {
	e      *fakeEngine
	cols   []storage.Column
	rows   [][]any
	i      int
	closed bool
}

func (r *fakeResult) Columns() []storage.Column { return r.cols }
func (r *fakeResult) Next() ([]any, error) {
	if r.i >= len(r.rows) {
		return nil, io.EOF
	}
	r.i++
	return r.rows[r.i-1], nil
}
func (r *fakeResult) Close() error {
	if !r.closed {
		r.closed = true
		r.e.open.Add(-1)
	}
	return nil
}

func typ(k storage.Kind) storage.Type { return storage.Type{Kind: k} }

func allTypesColumns() []storage.Column {
	intT, strT := typ(storage.Int), typ(storage.String)
	col := func(name string, t storage.Type) storage.Column {
		return storage.Column{Name: name, Type: t, Nullable: true}
	}
	return []storage.Column{
		col("c_bool", typ(storage.Boolean)),
		col("c_tiny", typ(storage.TinyInt)),
		col("c_small", typ(storage.SmallInt)),
		col("c_int", intT),
		col("c_big", typ(storage.BigInt)),
		col("c_large", typ(storage.LargeInt)),
		col("c_float", typ(storage.Float)),
		col("c_double", typ(storage.Double)),
		col("c_dec", storage.Type{Kind: storage.Decimal, Precision: 10, Scale: 2}),
		col("c_dec256", storage.Type{Kind: storage.Decimal, Precision: 50, Scale: 3}),
		col("c_date", typ(storage.Date)),
		col("c_dt0", storage.Type{Kind: storage.DateTime, Scale: 0}),
		col("c_dt3", storage.Type{Kind: storage.DateTime, Scale: 3}),
		col("c_dt6", storage.Type{Kind: storage.DateTime, Scale: 6}),
		col("c_char", storage.Type{Kind: storage.Char, Length: 4}),
		col("c_varchar", storage.Type{Kind: storage.Varchar, Length: 16}),
		col("c_string", strT),
		col("c_json", typ(storage.JSON)),
		col("c_array", storage.Type{Kind: storage.Array, Elem: &intT}),
		col("c_map", storage.Type{Kind: storage.Map, Key: &strT, Value: &intT}),
		col("c_struct", storage.Type{Kind: storage.Struct, Fields: []storage.Field{{Name: "a", Type: intT}, {Name: "b", Type: strT}}}),
	}
}

func allTypesRows() [][]any {
	large, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	ts := time.Date(2026, 9, 14, 10, 5, 6, 123456000, time.UTC)
	full := []any{
		true, int8(-8), int16(-16), int32(-32), int64(-64), large, float32(1.5), float64(2.25),
		decimal.RequireFromString("12.30"), decimal.RequireFromString("-123456789012345678901234567890123456789012.345"),
		time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC), ts.Truncate(time.Second), ts.Truncate(time.Millisecond), ts,
		"ab", "varchar", "string", `{"k":1}`,
		[]any{int32(1), nil, int32(3)},
		storage.MapValue{Keys: []any{"x", "y"}, Values: []any{int32(1), nil}},
		[]any{int32(7), "seven"},
	}
	nulls := make([]any, len(full))
	return [][]any{full, nulls}
}
