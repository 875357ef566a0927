package dorissim

import (
	"math/rand/v2"
	"strconv"
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

// TestClockStartWithDemo starts the clock on the New York fall-back: the
// TSO, NOW() in the FE's zone and the demo rows' timestamps all follow it.
func TestClockStartWithDemo(t *testing.T) {
	start := time.Date(2026, 11, 1, 5, 59, 30, 0, time.UTC)
	s := startSim(t, Config{ClockStart: start, Demo: true, TimeZone: "America/New_York"})
	// Bounds, not speeds: the clock must have started at start and run
	// forward, however slowly this machine gets to the checks.
	tso := time.UnixMilli(s.Store().CurrentTSO().PhysicalMs).UTC()
	if tso.Before(start) || tso.After(start.Add(5*time.Minute)) {
		t.Fatalf("TSO physical time %s, want just after %s", tso, start)
	}
	got := statementText(t, s, "SELECT NOW(), UNIX_TIMESTAMP(), MIN(updated_at) FROM `demo`.`orders`")
	now, err := time.Parse(time.DateTime, got[0][0])
	if err != nil {
		t.Fatalf("NOW() %v: %v", got, err)
	}
	epoch, _ := strconv.ParseInt(got[0][1], 10, 64)
	at := time.Unix(epoch, 0).UTC()
	if at.Before(tso.Truncate(time.Second)) || at.After(start.Add(5*time.Minute)) {
		t.Fatalf("UNIX_TIMESTAMP() %s, want after %s", at, tso)
	}
	ny, _ := time.LoadLocation("America/New_York")
	if wall := at.In(ny).Format(time.DateTime); wall != now.Format(time.DateTime) {
		t.Errorf("NOW() %s, want %s (the wall clock of %s in New York)", got[0][0], wall, at)
	}
	minAt, err := time.Parse("2006-01-02 15:04:05.000", got[0][2])
	if err != nil || minAt.Before(start) || minAt.After(at.Add(time.Second)) {
		t.Errorf("demo updated_at %s (%v), want between %s and %s", got[0][2], err, start, at)
	}
	if _, err := Start(testCtx(t), Config{ClockStart: start, Clock: time.Now}); err == nil {
		t.Error("Clock and ClockStart together were accepted")
	}
}
