package sqlengine

import (
	"io"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// loadRows writes n rows of (k INT, v VARCHAR(32), amount DECIMAL(10,2))
// straight into storage.
func loadRows(tb testing.TB, store *storage.Store, n int) {
	tb.Helper()
	if err := store.CreateDatabase("b", true); err != nil {
		tb.Fatal(err)
	}
	def := storage.TableDef{
		Name: "big",
		Columns: []storage.Column{
			{Name: "k", Type: storage.Type{Kind: storage.BigInt}, Key: true},
			{Name: "v", Type: storage.Type{Kind: storage.Varchar, Length: 32}, Nullable: true},
			{Name: "amount", Type: storage.Type{Kind: storage.Decimal, Precision: 10, Scale: 2}, Nullable: true},
		},
		Keys: "DUP_KEYS", KeyColumns: []string{"k"}, BucketColumns: []string{"k"}, Buckets: 4,
		Properties: map[string]string{},
	}
	if err := store.CreateTable("b", def, false); err != nil {
		tb.Fatal(err)
	}
	amount := decimal.New(12345, -2)
	tx := store.Begin()
	for i := 0; i < n; i++ {
		if err := tx.Insert("b", "big", []any{int64(i), "value", amount}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkSelectStar1M(b *testing.B) {
	const n = 1_000_000
	eng, store := newTestEngine(b, nil)
	loadRows(b, store, n)
	s := eng.NewSession("root")
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.Query(testCtx(b), "SELECT * FROM b.big")
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		for {
			_, err := res.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			count++
		}
		res.Close()
		if count != n {
			b.Fatalf("rows = %d", count)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

func TestSelectStreamsLargeTable(t *testing.T) {
	eng, store := newTestEngine(t, nil)
	loadRows(t, store, 20000)
	s := eng.NewSession("root")
	defer s.Close()
	res, err := s.Query(testCtx(t), "SELECT k, amount FROM b.big WHERE k >= 100 LIMIT 5000")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readAll(res)
	if err != nil || len(rows) != 5000 {
		t.Fatalf("rows %d err %v", len(rows), err)
	}
	if storage.FormatValue(res.Columns[1].Type, rows[0][1]) != "123.45" {
		t.Fatalf("amount = %v", rows[0][1])
	}
}
