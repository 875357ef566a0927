package dorissim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

func TestDemoSeedsAndChanges(t *testing.T) {
	s := startSim(t, Config{})
	ctx := testCtx(t)
	if err := s.DemoStep(ctx, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Fatal("DemoStep before SeedDemo succeeded")
	}
	if err := s.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Query(ctx, "SELECT COUNT(*) FROM `demo`.`orders`")
	if err != nil || len(rows) != 1 || rows[0][0] != int64(1000) {
		t.Fatalf("seed count %v %v", rows, err)
	}
	before := s.Store().CurrentTSO()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		if err := s.DemoStep(ctx, rng); err != nil {
			t.Fatal(err)
		}
	}
	_, it, err := s.Store().Incr(ctx, "demo", "orders", storage.IncrParams{
		Params: map[string]string{"incrementType": "DETAIL"}, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for {
		if _, err := it.Next(); err != nil {
			break
		}
		n++
	}
	if n <= 1000 {
		t.Fatalf("demo steps produced %d binlog records", n)
	}
	info, err := s.Store().Table("demo", "orders")
	if err != nil || !info.BinlogEnabled || !info.NeedHistoricalValue || len(info.TabletIDs) != 4 {
		t.Fatalf("demo table %+v %v", info, err)
	}
	if s.Store().CurrentTSO().Value <= before.Value {
		t.Fatal("TSO did not advance")
	}
}

func TestStartWithDemo(t *testing.T) {
	s := startSim(t, Config{Demo: true})
	rows, err := s.Query(testCtx(t), "SELECT COUNT(*) FROM `demo`.`orders`")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := rows[0][0].(int64); n < 990 || n > 1010 {
		t.Fatalf("demo rows %v", rows)
	}
}
