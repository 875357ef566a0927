package kafkae2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

var cols = []string{"id", "name", "qty", "amount"}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func runWorkload(t *testing.T, w *harness.Workload, steps int) {
	t.Helper()
	for i := range steps {
		if err := w.Step(ctxTimeout(t, time.Minute)); err != nil {
			t.Fatalf("workload step %d: %v", i, err)
		}
		if i%10 == 9 {
			time.Sleep(300 * time.Millisecond)
		}
	}
}

// shopSim is a simulator with shop.orders (UNIQUE KEY) and shop.events
// (DUPLICATE KEY), and the scan_timestamp before any change of them.
func shopSim(t *testing.T) (*dorissim.Server, string) {
	t.Helper()
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE shop")
	harness.CreateTable(t, srv, "shop", "orders", harness.TableOpts{})
	harness.CreateTable(t, srv, "shop", "events", harness.TableOpts{Duplicate: true})
	start := harness.Now(t, srv)
	time.Sleep(1100 * time.Millisecond) // changes commit after the start's second
	return srv, start
}

// waitTables waits until the read_committed topics rebuild shop.orders
// and hold the events changes of shop.events (a DUPLICATE KEY table), and returns the records.
func waitTables(t *testing.T, srv *dorissim.Server, c *consumer, events int, what string) []*kgo.Record {
	t.Helper()
	want := harness.TableState(t, srv, "shop", "orders", "id", cols...)
	deadline := time.Now().Add(60 * time.Second)
	for {
		recs := c.records()
		evs, _ := tableEvents(t, recs, "doris.shop.orders")
		got, err := harness.Replay(evs, "id")
		if err != nil {
			t.Fatalf("replay of doris.shop.orders: %v", err)
		}
		diff := harness.Diff(want, got)
		dup, _ := tableEvents(t, recs, "doris.shop.events")
		if diff == "" && len(dup) == events {
			return recs
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %d records, %d of %d events rows, orders differ: %s", what, len(recs), len(dup), events, diff)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBinlogIntoKafkaExactlyOnce streams two tables into a topic each, then
// replays the whole binlog into the same topics (a fresh checkpoint from the
// same scan_timestamp, as after restoring an older checkpoint): with
// exactly_once a read_committed consumer sees every change once, in
// (tso, lsn) order per key, deletes as the deleted row.
func TestBinlogIntoKafkaExactlyOnce(t *testing.T) {
	srv, start := shopSim(t)
	kc := startKafka(t)
	brokers := kc.ListenAddrs()
	in := harness.SelectYAML(srv, `include: ['shop\..*']`, "scan_mode: from-timestamp", `scan_timestamp: "`+start+`"`)
	out := cdcOutput(brokers, "exactly_once: true", "transactional_id: shop-e2e")
	c := consume(t, brokers)

	w := harness.NewWorkload(srv, "shop", "orders", 7)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 10); err != nil {
		t.Fatal(err)
	}
	harness.Tx(t, srv,
		"INSERT INTO shop.events VALUES (1, 'a', 1, 1.00), (1, 'b', 2, 2.00)",
		"DELETE FROM shop.orders WHERE id = 2",
		"UPDATE shop.orders SET qty = 99 WHERE id = 3")
	deleted := harness.Row{"id": "2"}

	first := startStream(t, in, harness.FileCache(t.TempDir()), out)
	runWorkload(t, w, 20)
	waitTables(t, srv, c, 2, "the first run's changes")
	if err := first.stop(20 * time.Second); err != nil {
		t.Fatalf("stopping the first run: %v", err)
	}

	runWorkload(t, w, 20)
	harness.Exec(t, srv, "INSERT INTO shop.events VALUES (2, 'c', 3, 3.00)")
	// The replay: every change again from the start, plus the new ones.
	m := &harness.MetricsCapture{}
	startStream(t, in, harness.FileCache(t.TempDir()), out, m)
	recs := waitTables(t, srv, c, 3, "the replay's changes")
	time.Sleep(2 * time.Second) // a replayed duplicate would arrive by now
	recs = c.records()
	if m.Counter("kafka_franz_replayed_dropped") == 0 || m.Counter("kafka_franz_transactions_committed") == 0 || m.Counter("kafka_franz_transactions_aborted") != 0 {
		t.Errorf("metrics: dropped %d committed %d aborted %d; want replays dropped, transactions committed, none aborted",
			m.Counter("kafka_franz_replayed_dropped"), m.Counter("kafka_franz_transactions_committed"), m.Counter("kafka_franz_transactions_aborted"))
	}

	for _, topic := range []string{"doris.shop.orders", "doris.shop.events"} {
		evs, dups := tableEvents(t, recs, topic)
		if dups != 0 {
			t.Errorf("%s: %d changes written twice; exactly_once must drop replays", topic, dups)
		}
		if len(evs) == 0 {
			t.Errorf("%s: no changes", topic)
		}
	}
	checkKeyOrder(t, recs)

	var sawDelete bool
	for _, r := range recs {
		if r.Topic == "doris.shop.events" && len(r.Key) != 0 {
			t.Errorf("a DUPLICATE KEY table has no key columns, so its key is empty; got %q", r.Key)
		}
		if r.Topic != "doris.shop.orders" {
			continue
		}
		ev := event(t, r)
		if string(r.Key) != fmt.Sprint(ev.Row["id"]) {
			t.Errorf("key %q of row %v; want its id", r.Key, ev.Row)
		}
		for _, h := range []string{"operation", "tso", "lsn", "database_schema", "table", "commit_ts_ms"} {
			if _, ok := header(r, h); !ok {
				t.Errorf("record %s@%d lacks header %s: %v", r.Topic, r.Offset, h, r.Headers)
			}
		}
		if ev.Operation == "delete" && fmt.Sprint(ev.Row["id"]) == deleted["id"] {
			sawDelete = true
			if ev.Row["name"] == nil || r.Value == nil {
				t.Errorf("a delete's body is the deleted row; got %s", r.Value)
			}
		}
	}
	if !sawDelete {
		t.Error("no delete record for id 2")
	}
}

// TestBinlogIntoKafkaAtLeastOnce is the same replay with exactly_once off:
// nothing is lost, and the replayed changes are written again, which is
// what tells the two modes apart.
func TestBinlogIntoKafkaAtLeastOnce(t *testing.T) {
	srv, start := shopSim(t)
	kc := startKafka(t)
	brokers := kc.ListenAddrs()
	in := harness.SelectYAML(srv, `include: ['shop\..*']`, "scan_mode: from-timestamp", `scan_timestamp: "`+start+`"`)
	out := cdcOutput(brokers)
	c := consume(t, brokers)
	w := harness.NewWorkload(srv, "shop", "orders", 9)
	harness.Exec(t, srv, "INSERT INTO shop.events VALUES (1, 'a', 1, 1.00)")

	first := startStream(t, in, harness.FileCache(t.TempDir()), out)
	runWorkload(t, w, 20)
	firstRecs := waitTables(t, srv, c, 1, "the first run's changes")
	if err := first.stop(20 * time.Second); err != nil {
		t.Fatalf("stopping the first run: %v", err)
	}
	written, _ := tableEvents(t, firstRecs, "doris.shop.orders")

	runWorkload(t, w, 10)
	startStream(t, in, harness.FileCache(t.TempDir()), out)
	var dups int
	c.waitFor(t, 60*time.Second, "the replay written again", func(recs []*kgo.Record) bool {
		_, dups = tableEvents(t, recs, "doris.shop.orders")
		return dups >= len(written)
	})
	recs := waitTables(t, srv, c, 1, "the replay's changes")
	_, dups = tableEvents(t, recs, "doris.shop.orders")
	t.Logf("kafka at-least-once replay: changes=%d duplicates=%d", len(written), dups)
	if dups < len(written) {
		t.Errorf("with exactly_once off the replay writes every change again: %d duplicates of %d", dups, len(written))
	}
}
