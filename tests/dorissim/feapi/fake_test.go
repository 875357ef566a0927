package feapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

type fakeBackend struct {
	mu     sync.Mutex
	loads  []storage.LoadRequest
	labels map[string]bool
	faults []string
	tsoErr int
}

func (b *fakeBackend) Authenticate(u, p string) bool  { return u == "root" && p == "pw" }
func (b *fakeBackend) NewSession(user string) Session { return &fakeSession{} }
func (b *fakeBackend) CurrentTSO() storage.TSO {
	return storage.TSO{Value: 1760000000123<<18 | 1, PhysicalMs: 1760000000123, Logical: 1}
}

var ordersDef = storage.TableDef{
	Name: "orders", Keys: "UNIQUE_KEYS", KeyColumns: []string{"order_id"},
	Columns: []storage.Column{
		{Name: "order_id", Type: storage.Type{Kind: storage.BigInt}, Key: true},
		{Name: "status", Type: storage.Type{Kind: storage.Varchar, Length: 16}, Nullable: true, Comment: "state"},
		{Name: "amount", Type: storage.Type{Kind: storage.Decimal, Precision: 10, Scale: 2}, Nullable: true},
	},
}

func (b *fakeBackend) Table(db, table string) (*storage.TableInfo, error) {
	if db != "sales" || table != "orders" {
		return nil, &storage.Error{Code: 1146, Message: fmt.Sprintf("Unknown table '%s.%s'", db, table)}
	}
	return &storage.TableInfo{DB: db, Def: ordersDef, TabletIDs: []int64{11017, 11018}}, nil
}

func (b *fakeBackend) PlanTablets(db, table, sql string) ([]int64, error) {
	info, err := b.Table(db, table)
	if err != nil {
		return nil, err
	}
	return info.TabletIDs, nil
}

// BeginLoad reserves the label; fakeLoadTxn records what Run receives.
func (b *fakeBackend) BeginLoad(db, label string) (LoadTxn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.labels == nil {
		b.labels = map[string]bool{}
	}
	if b.labels[label] {
		return nil, &storage.LabelUsedError{Label: label, TxnID: 7, JobStatus: "FINISHED"}
	}
	b.labels[label] = true
	return &fakeLoadTxn{b: b, label: label}, nil
}

type fakeLoadTxn struct {
	b     *fakeBackend
	label string
}

func (t *fakeLoadTxn) TxnID() int64 { return 42 }

func (t *fakeLoadTxn) Run(table string, req storage.LoadRequest) (storage.LoadResult, error) {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	t.b.loads = append(t.b.loads, req)
	return storage.LoadResult{TxnID: 42, Loaded: int64(len(req.Rows))}, nil
}

func (t *fakeLoadTxn) Abort(string) {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	delete(t.b.labels, t.label)
}

func (b *fakeBackend) Txn2PC(db string, txnID int64, label, op string) (storage.LoadResult, error) {
	if txnID != 42 {
		return storage.LoadResult{}, &storage.Error{Code: 1105, Message: fmt.Sprintf("transaction [%d] not found", txnID)}
	}
	return storage.LoadResult{TxnID: 42}, nil
}

func (b *fakeBackend) LabelState(db, label string) (storage.TxnStatus, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.labels[label] {
		return storage.TxnVisible, nil
	}
	return storage.TxnUnknown, nil
}

func (b *fakeBackend) GroupCommitLoad(db, table string, req storage.LoadRequest, mode string) (storage.GroupCommitResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.loads = append(b.loads, req)
	return storage.GroupCommitResult{TxnID: 43, Label: "group_commit_0123456789abcdef_0123456789abcdef", Loaded: int64(len(req.Rows))}, nil
}

func (b *fakeBackend) TakeTSOError() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tsoErr > 0 {
		b.tsoErr--
		return true
	}
	return false
}

func (b *fakeBackend) ApplyFaults(body []byte) error {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("faults: %w", err)
	}
	b.mu.Lock()
	b.faults = append(b.faults, string(body))
	b.mu.Unlock()
	return nil
}
func (b *fakeBackend) ClearFaults()              { b.mu.Lock(); b.faults = nil; b.mu.Unlock() }
func (b *fakeBackend) TakeLoadFault(string) bool { return false }

type fakeSession struct{}

func (fakeSession) Close() {}

func (fakeSession) Query(ctx context.Context, sql string) (Result, error) {
	low := strings.ToLower(strings.TrimSpace(sql))
	switch {
	case strings.HasPrefix(low, "set "):
		return &fakeResult{}, nil
	case strings.HasPrefix(low, "select from_unixtime"):
		return &fakeResult{cols: []storage.Column{{Name: "ts", Type: storage.Type{Kind: storage.Varchar}}},
			rows: [][]any{{"2025-10-09 08:53:20"}}}, nil
	case strings.HasPrefix(low, "numbers"):
		rows := make([][]any, 20000)
		for i := range rows {
			rows[i] = []any{int64(i)}
		}
		return &fakeResult{cols: []storage.Column{{Name: "n", Type: storage.Type{Kind: storage.BigInt}}}, rows: rows}, nil
	case strings.HasPrefix(low, "typed"):
		dt := time.Date(2026, 9, 14, 10, 0, 1, 500000000, time.UTC)
		intT := storage.Type{Kind: storage.Int}
		return &fakeResult{cols: []storage.Column{
			{Name: "b", Type: storage.Type{Kind: storage.Boolean}},
			{Name: "d", Type: storage.Type{Kind: storage.Decimal, Precision: 10, Scale: 2}},
			{Name: "t", Type: storage.Type{Kind: storage.DateTime, Scale: 3}},
			{Name: "a", Type: storage.Type{Kind: storage.Array, Elem: &intT}},
			{Name: "f", Type: storage.Type{Kind: storage.Double}},
			{Name: "n", Type: storage.Type{Kind: storage.String}, Nullable: true},
		}, rows: [][]any{{true, decimal.RequireFromString("12.3"), dt, []any{int32(1), nil}, 2.5, nil}}}, nil
	case strings.HasPrefix(low, "select * from (select"):
		if strings.Contains(low, "nosuchcol") {
			return nil, &storage.Error{Code: 1105, Message: "Unknown column 'nosuchcol'"}
		}
		return &fakeResult{cols: ordersDef.Columns}, nil
	}
	return nil, &storage.Error{Code: 1105, Message: "syntax error near " + sql}
}

type fakeResult struct {
	cols []storage.Column
	rows [][]any
	i    int
}

func (r *fakeResult) Columns() []storage.Column { return r.cols }
func (r *fakeResult) Next() ([]any, error) {
	if r.i >= len(r.rows) {
		return nil, io.EOF
	}
	r.i++
	return r.rows[r.i-1], nil
}
func (r *fakeResult) Close() error { return nil }
