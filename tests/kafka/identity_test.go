package kafkae2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestTablesOfOneTransactionInOnePartition streams tables named `z.x`,
// `a b` and `m`, changed together in Doris transactions, into one
// single-partition topic with exactly_once, then replays the binlog. The
// input emits a transaction's tables in the order of their quoted names
// (shop.`a b`, shop.`z.x`, shop.m); the output must compare them the same
// way, or it takes shop.m for older than shop.z.x and drops it. Every
// change lands once, the replay adds nothing.
func TestTablesOfOneTransactionInOnePartition(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE shop")
	tables := []string{"m", "z.x", "a b"}
	for _, tbl := range tables {
		harness.CreateTable(t, srv, "shop", tbl, harness.TableOpts{Buckets: 1})
	}
	start := harness.Now(t, srv)
	time.Sleep(1100 * time.Millisecond) // changes commit after the start's second

	const topic = "doris.shop.all"
	kc := startKafka(t, kfake.SeedTopics(1, topic))
	brokers := kc.ListenAddrs()
	c := consume(t, brokers)
	in := harness.SelectYAML(srv, `include: ['shop\..*']`, "scan_mode: from-timestamp", `scan_timestamp: "`+start+`"`)
	out := fmt.Sprintf(`kafka_franz:
  seed_brokers: [ %s ]
  topic: %s
  key: '${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
  max_in_flight: 1
  exactly_once: true
  transactional_id: identity-e2e
`, strings.Join(brokers, ", "), topic)

	each := func(stmt string) []string {
		var out []string
		for _, tbl := range tables {
			out = append(out, fmt.Sprintf(stmt, harness.QuoteIdent(tbl)))
		}
		return out
	}
	harness.Tx(t, srv, each("INSERT INTO shop.%s VALUES (1, 'a', 1, 1.00), (2, 'b', 2, 2.00)")...)
	harness.Tx(t, srv, append(each("UPDATE shop.%s SET qty = 9 WHERE id = 1"), each("DELETE FROM shop.%s WHERE id = 2")...)...)
	// 2 inserts, an update's two halves and a delete per table.
	const perTable = 5

	check := func(what string) {
		t.Helper()
		recs := c.waitFor(t, 60*time.Second, what, func(recs []*kgo.Record) bool {
			evs, _ := tableEvents(t, recs, topic)
			return len(evs) >= perTable*len(tables)
		})
		time.Sleep(2 * time.Second) // a duplicate would arrive by now
		recs = c.records()
		evs, dups := tableEvents(t, recs, topic)
		if dups != 0 {
			t.Errorf("%s: %d changes written twice", what, dups)
		}
		n := map[string]int{}
		for _, ev := range evs {
			n[ev.Table]++
		}
		for _, tbl := range tables {
			if n[tbl] != perTable {
				t.Errorf("%s: table %q has %d changes in %s; want %d", what, tbl, n[tbl], topic, perTable)
			}
		}
		// The partition holds them in the input's order.
		var last *checkpoint.Pos
		for _, r := range recs {
			ev := event(t, r)
			if r.Topic != topic || ev.Phase != "binlog" {
				continue
			}
			p := checkpoint.Pos{TSO: ev.TSO, Table: doris.FormatTableIdentifier(ev.Database, ev.Table), LSN: ev.LSN, Op: int8(ev.Op)}
			if last != nil && !last.Less(p) {
				t.Errorf("%s: offset %d holds %+v after %+v", what, r.Offset, p, *last)
			}
			last = &p
		}
	}

	first := startStream(t, in, harness.FileCache(t.TempDir()), out)
	check("the changes of the three tables")
	if err := first.stop(20 * time.Second); err != nil {
		t.Fatalf("stopping the first run: %v", err)
	}
	// The replay: the whole binlog again from a fresh checkpoint, every
	// change of it dropped as written.
	m := &harness.MetricsCapture{}
	startStream(t, in, harness.FileCache(t.TempDir()), out, m)
	harness.WaitFor(t, 60*time.Second, "the replay to be dropped", func() bool {
		return m.Counter("kafka_franz_replayed_dropped") >= perTable*int64(len(tables))
	})
	check("the replay")
}
