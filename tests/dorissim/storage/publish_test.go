package storage

import (
	"context"
	"testing"
	"time"
)

// A held commit has its TSO but is not visible: a scan misses it (and the
// hold says so), an @incr read ending before its TSO does not wait, one
// ending after it waits until the release and then sees its record.
func TestHeldPublishIsInvisibleUntilReleased(t *testing.T) {
	clock := newFakeClock(at("2026-01-01 00:00:00").Add(500 * time.Millisecond))
	s := newStoreWith(t, clock, ordersDDL)
	insertRows(t, s, "orders", order(1, "new", "1.00"))
	hold, err := s.HoldPublish("db", "orders")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.HoldPublish("db", "orders"); err == nil {
		t.Fatal("a second hold of the same table was accepted")
	}
	clock.Set(at("2026-01-01 00:00:01").Add(500 * time.Millisecond))
	held := insertRows(t, s, "orders", order(2, "held", "2.00"))
	if held.PhysicalMs != at("2026-01-01 00:00:01").UnixMilli()+500 || hold.Held() != 1 {
		t.Fatalf("commit TSO %+v, %d held; want the commit's own time and one held", held, hold.Held())
	}
	clock.Set(at("2026-01-01 00:00:03"))

	it, err := s.Scan("db", "orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rows := drain(t, it); len(rows) != 1 || !hold.Scanned() {
		t.Fatalf("scan during the hold: %d rows, scanned %t; want the published row only, noted", len(rows), hold.Scanned())
	}
	cols, rows := incr(t, s, "orders", window("2026-01-01 00:00:00", "2026-01-01 00:00:01", "DETAIL"))
	equalStrings(t, "window before the held commit", project(cols, rows, "order_id"), []string{"1"})

	type result struct {
		ids []string
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cols, it, err := s.Incr(ctx, "db", "orders", IncrParams{Params: window("2026-01-01 00:00:02", "2026-01-01 00:00:02", "APPEND_ONLY")})
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{ids: project(cols, drain(t, it), "order_id")}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !hold.Waiting() {
		if time.Now().After(deadline) {
			t.Fatal("the empty window ending after the held commit did not wait for its publish")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case r := <-done:
		t.Fatalf("the read returned before the release: %+v", r)
	default:
	}
	hold.Release()
	r := <-done
	if r.err != nil || len(r.ids) != 0 {
		t.Fatalf("the empty window after the release: %v, %v; want no rows", r.ids, r.err)
	}
	cols, rows = incr(t, s, "orders", window("2026-01-01 00:00:01", "2026-01-01 00:00:02", "DETAIL"))
	equalStrings(t, "the held commit's record after the release", project(cols, rows, "order_id", "status"), []string{"2|held"})
	it, err = s.Scan("db", "orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rows := drain(t, it); len(rows) != 2 {
		t.Fatalf("scan after the release: %d rows, want 2", len(rows))
	}
	hold.Release() // a second release does nothing
}

// Commits on a held table publish in their commit order: a later commit
// waits behind the held one, and both records come in TSO order.
func TestHeldPublishKeepsCommitOrder(t *testing.T) {
	clock := newFakeClock(at("2026-01-01 00:00:00"))
	s := newStoreWith(t, clock, ordersDDL)
	hold, err := s.HoldPublish("db", "orders")
	if err != nil {
		t.Fatal(err)
	}
	insertRows(t, s, "orders", order(1, "first", "1.00"))
	insertRows(t, s, "orders", order(1, "second", "1.00"))
	if hold.Held() != 2 {
		t.Fatalf("%d commits held, want 2", hold.Held())
	}
	hold.Release()
	clock.Set(at("2026-01-01 00:00:02"))
	cols, rows := incr(t, s, "orders", window("2026-01-01 00:00:00", "2026-01-01 00:00:01", "DETAIL"))
	equalStrings(t, "records", project(cols, rows, "order_id", "status", ColBinlogOp), []string{"1|first|0", "1|first|2", "1|second|3"})
}
