package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// eoOf is eoYAML under another transactional_id.
func eoOf(txnID string, extra ...string) string {
	return strings.Replace(eoYAML, "transactional_id: t1", "transactional_id: "+txnID, 1) + strings.Join(extra, "\n") + "\n"
}

// tableChange is change() of db.table.
func tableChange(db, table string, id int, tso, lsn int64, op string) *service.Message {
	m := change(id, tso, lsn, op)
	m.MetaSetMut("database_schema", db)
	m.MetaSetMut("table", table)
	return m
}

// changes are n inserts of shop.orders from tso first on.
func changes(first int64, n int) []*service.Message {
	var out []*service.Message
	for i := range n {
		out = append(out, change(i, first+int64(i), 0, "insert"))
	}
	return out
}

// foreign writes records with the given headers to orders/0 with a plain
// producer of its own: another pipeline sharing the topic.
func foreign(t *testing.T, c *kfake.Cluster, n int, headers ...string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var hs []kgo.RecordHeader
	for i := 0; i+1 < len(headers); i += 2 {
		hs = append(hs, kgo.RecordHeader{Key: headers[i], Value: []byte(headers[i+1])})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Key: []byte("f"), Value: []byte(`{"foreign":true}`), Headers: hs}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// positions counts the committed records of topic per (table, tso), for
// records that carry a tso.
func positions(recs []*kgo.Record) map[string]int {
	out := map[string]int{}
	for _, r := range recs {
		if tso := header(r, "tso"); tso != "" {
			out[header(r, "database_schema")+"."+header(r, "table")+"@"+tso]++
		}
	}
	return out
}

// wantOnce fails unless every shop.orders tso in [first, first+n) is
// written exactly once.
func wantOnce(t *testing.T, got map[string]int, table string, first int64, n int) {
	t.Helper()
	for i := range n {
		k := fmt.Sprintf("%s@%d", table, first+int64(i))
		if got[k] != 1 {
			t.Errorf("%s written %d times; want once", k, got[k])
		}
	}
}

// Two tables of one Doris transaction, written to one partition, compare in
// the order doris_binlog emits them: by their quoted identity, where
// "shop.`z.x`" comes before "shop.m" (a bare name), though "shop.z.x"
// would come after it.
func TestExactlyOnceOrdersTablesAsTheInput(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	tables := []string{"m", "z.x", "a b"}
	slices.SortFunc(tables, func(a, b string) int {
		return strings.Compare(doris.FormatTableIdentifier("shop", a), doris.FormatTableIdentifier("shop", b))
	})
	var tx []*service.Message
	for i, tbl := range tables {
		tx = append(tx, tableChange("shop", tbl, i, 100, 0, "insert"))
	}
	o := newOutput(t, c, eoYAML)
	write(t, o, tx...)
	_ = o.Close(context.Background())
	o2 := newOutput(t, c, eoYAML)
	write(t, o2, append(slices.Clone(tx), tableChange("shop", "m", 9, 101, 0, "insert"))...)

	got := positions(readCommitted(t, c, "orders", 4))
	for _, tbl := range tables {
		wantOnce(t, got, "shop."+tbl, 100, 1)
	}
	wantOnce(t, got, "shop.m", 101, 1)
}

// Another instance writing other tables with newer positions into the same
// partition does not make this one drop its own changes.
func TestExactlyOnceSkipsOtherInstances(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	a := newOutput(t, c, eoOf("a"))
	write(t, a, changes(100, 6)...)
	_ = a.Close(context.Background())
	b := newOutput(t, c, eoOf("b"))
	var other []*service.Message
	for i := range 300 { // past the first window of the tail search
		other = append(other, tableChange("shop", "other", i, int64(1000+i), 0, "insert"))
	}
	write(t, b, other...)

	a2 := newOutput(t, c, eoOf("a"))
	write(t, a2, changes(100, 11)...) // a replay of 6, then 5 new ones
	got := positions(readCommitted(t, c, "orders", 311))
	wantOnce(t, got, "shop.orders", 100, 11)
	wantOnce(t, got, "shop.other", 1000, 300)
}

// A tail without a position (a record of another producer, this writer's
// snapshot row) is skipped: the filter still drops the replay.
func TestExactlyOnceSkipsUnpositionedTail(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, changes(100, 6)...)
	write(t, o, snapshotRow(1))
	_ = o.Close(context.Background())
	foreign(t, c, 1)

	o2 := newOutput(t, c, eoYAML)
	write(t, o2, changes(100, 11)...)
	recs := readCommitted(t, c, "orders", 13)
	if n := len(recs); n != 13 {
		t.Errorf("%d records; want 13: 11 changes, a snapshot row and the foreign record", n)
	}
	wantOnce(t, positions(recs), "shop.orders", 100, 11)
}

// Records of other producers with broken or partial positions are not this
// writer's, and are skipped.
func TestExactlyOnceSkipsForeignMalformedTail(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, changes(100, 6)...)
	_ = o.Close(context.Background())
	foreign(t, c, 1, "tso", "500")
	foreign(t, c, 1, "tso", "501", "database_schema", "x", "table", "y", "lsn", "0", "operation", "upsert")
	foreign(t, c, 1, "tso", "abc", headerWriter, "someone-else")

	o2 := newOutput(t, c, eoYAML)
	write(t, o2, changes(100, 11)...)
	recs := readCommitted(t, c, "orders", 14)
	got := positions(recs)
	wantOnce(t, got, "shop.orders", 100, 11)
	if len(recs) != 14 {
		t.Errorf("%d records; want 14: 11 changes and 3 foreign records", len(recs))
	}
}

// A record of this writer whose position is broken stops the output: it
// cannot tell how far the partition got.
func TestExactlyOnceOwnMalformedTailStops(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, changes(100, 2)...)
	_ = o.Close(context.Background())
	foreign(t, c, 1, headerWriter, "t1", "tso", "102", "database_schema", "shop", "table", "orders")

	var bad int64 = -1
	for _, r := range readCommitted(t, c, "orders", 3) {
		if header(r, "tso") == "102" {
			bad = r.Offset
		}
	}

	o2 := newOutput(t, c, eoYAML)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := o2.WriteBatch(ctx, service.MessageBatch(changes(100, 3)))
	where := fmt.Sprintf("partition orders/0: record at offset %d", bad)
	if err == nil || !doris.IsPermanent(err) || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), "no lsn") {
		t.Fatalf("error %v (permanent %v); want a permanent one naming %q and the missing lsn", err, doris.IsPermanent(err), where)
	}
}

// The search for this writer's last record reads at most
// max_tail_scan_records offsets; past them it fails naming the partition,
// rather than writing the replay again. A partition where it finds none
// down to the start holds nothing of this writer: nothing is dropped.
func TestExactlyOnceTailScanIsBounded(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	const limit = "max_tail_scan_records: 100"
	foreign(t, c, 40)
	o := newOutput(t, c, eoOf("t1", limit))
	write(t, o, changes(100, 3)...)
	_ = o.Close(context.Background())
	foreign(t, c, 300)

	o2 := newOutput(t, c, eoOf("t1", limit))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := o2.WriteBatch(ctx, service.MessageBatch(changes(100, 4)))
	if err == nil || !doris.IsPermanent(err) || !strings.Contains(err.Error(), "partition orders/0") || !strings.Contains(err.Error(), fieldMaxTailScan) {
		t.Fatalf("error %v; want a permanent one naming orders/0 and %s", err, fieldMaxTailScan)
	}
	o3 := newOutput(t, c, eoOf("t1", "max_tail_scan_records: 1000"))
	write(t, o3, changes(100, 4)...)
	recs := readCommitted(t, c, "orders", 344)
	wantOnce(t, positions(recs), "shop.orders", 100, 4)
	if len(recs) != 344 {
		t.Errorf("%d records; want 344", len(recs))
	}
}

// Every record exactly_once writes names its writer, whatever metadata
// selects.
func TestExactlyOnceTagsEveryRecord(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML+"metadata:\n  include_patterns: [ '.*' ]\n")
	m := change(1, 100, 0, "insert")
	m.MetaSetMut(headerWriter, "spoofed")
	write(t, o, m, snapshotRow(2))
	for _, r := range readCommitted(t, c, "orders", 2) {
		var ids []string
		for _, h := range r.Headers {
			if h.Key == headerWriter {
				ids = append(ids, string(h.Value))
			}
		}
		if !slices.Equal(ids, []string{"t1"}) {
			t.Errorf("record %s: writer headers %v; want [t1]", r.Value, ids)
		}
	}
}

// catchUpChange is tableChange() of a table catching up before it joins
// doris_binlog's shared windows (doris_phase=catchup).
func catchUpChange(table string, id int, tso int64) *service.Message {
	m := tableChange("shop", table, id, tso, 0, "insert")
	m.MetaSetMut("doris_phase", "catchup")
	return m
}

// A table that joined late catches up on rows older than rows of other
// tables already in a shared partition: they are written (at least once,
// as snapshot rows are), and the tail after them is still the chain's, so
// a replay of the chain drops what was written and nothing else.
func TestExactlyOnceWritesCatchUpRows(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, changes(100, 6)...) // the chain: shop.orders 100..105
	var late []*service.Message
	for i := range 3 {
		late = append(late, catchUpChange("late", i, int64(90+i)))
	}
	write(t, o, late...)
	got := positions(readCommitted(t, c, "orders", 9))
	wantOnce(t, got, "shop.late", 90, 3)
	_ = o.Close(context.Background())

	// A restart replays the chain from 103 and the catch-up again.
	o2 := newOutput(t, c, eoYAML)
	write(t, o2, append(changes(103, 3), late...)...)
	write(t, o2, changes(106, 2)...)
	recs := readCommitted(t, c, "orders", 14)
	got = positions(recs)
	wantOnce(t, got, "shop.orders", 100, 8)
	for i := range 3 {
		if k := fmt.Sprintf("shop.late@%d", 90+i); got[k] != 2 {
			t.Errorf("%s written %d times; want twice (at least once: before and after the restart)", k, got[k])
		}
	}
	if len(recs) != 14 {
		t.Errorf("%d records; want 14", len(recs))
	}
}

// This writer's own snapshot rows after its last change, more than
// max_tail_scan_records of them, do not hide its tail: each carries the
// tail it was written after (doris_tail), so the search stops at the
// first record of this writer of any kind.
func TestExactlyOnceTailBehindManyOwnSnapshotRows(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	const limit = "max_tail_scan_records: 100"
	o := newOutput(t, c, eoOf("t1", limit))
	write(t, o, changes(100, 3)...)
	var rows []*service.Message
	for i := range 300 {
		rows = append(rows, snapshotRow(i))
	}
	write(t, o, rows...)
	_ = o.Close(context.Background())

	o2 := newOutput(t, c, eoOf("t1", limit))
	write(t, o2, changes(100, 5)...) // a replay of 3, then 2 new ones
	recs := readCommitted(t, c, "orders", 305)
	wantOnce(t, positions(recs), "shop.orders", 100, 5)
	if len(recs) != 305 {
		t.Errorf("%d records; want 305", len(recs))
	}
	for _, r := range recs {
		if header(r, "tso") == "" && header(r, "doris_tail") == "" {
			t.Fatalf("snapshot row at offset %d carries no %s", r.Offset, "doris_tail")
		}
	}
}

// Another writer sharing the partition that commits transaction after
// transaction does not keep this one from reading its tail: the search
// stays below the end offset whose transactions it waited for.
func TestExactlyOnceTailBesideABusyTransactionalWriter(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, changes(100, 3)...)
	_ = o.Close(context.Background())

	other, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("busy"), kgo.DefaultProduceTopic("orders"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	busyCtx, stopBusy := context.WithCancel(context.Background())
	busy := make(chan int)
	go func() {
		n := 0
		defer func() { busy <- n }()
		for busyCtx.Err() == nil {
			if other.BeginTransaction() != nil {
				return
			}
			perr := other.ProduceSync(busyCtx, &kgo.Record{Value: []byte(`{"busy":1}`)}).FirstErr()
			time.Sleep(20 * time.Millisecond) // a transaction is open nearly all the time
			if other.EndTransaction(context.Background(), kgo.TryCommit) != nil {
				return
			}
			if perr == nil {
				n++ // a committed record of the busy writer
			}
		}
	}()
	defer func() {
		stopBusy()
		<-busy
	}()
	o2 := newOutput(t, c, eoYAML)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := o2.WriteBatch(ctx, service.MessageBatch(changes(100, 5))); err != nil {
		t.Fatalf("writing beside a busy transactional writer: %v", err)
	}
	stopBusy()
	n := <-busy
	busy = make(chan int, 1)
	busy <- n
	recs := readCommitted(t, c, "orders", 5+n)
	wantOnce(t, positions(recs), "shop.orders", 100, 5)
}
