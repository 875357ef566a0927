package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func startCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// buildOutput parses a whole config into an unconnected output.
func buildOutput(t *testing.T, yaml string) *output {
	t.Helper()
	pc, err := Spec().ParseYAML(yaml, nil)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	res := service.MockResources()
	return &output{cfg: conf, log: res.Logger(), m: newTxnMetrics(res.Metrics())}
}

// newOutput builds and connects the output from YAML fields after
// seed_brokers.
func newOutput(t *testing.T, c *kfake.Cluster, y string) *output {
	t.Helper()
	o := buildOutput(t, fmt.Sprintf("seed_brokers: [ %s ]\ntimeout: 5s\n%s", c.ListenAddrs()[0], y))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := o.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o
}

// change is a doris_binlog-shaped message of row id at (tso, lsn).
func change(id int, tso, lsn int64, op string) *service.Message {
	m := service.NewMessage(fmt.Appendf(nil, `{"id":%d}`, id))
	m.MetaSetMut("operation", op)
	m.MetaSetMut("database_schema", "shop")
	m.MetaSetMut("table", "orders")
	m.MetaSetMut("tso", tso)
	m.MetaSetMut("lsn", lsn)
	m.MetaSetMut("key_columns", []any{"id"})
	return m
}

func snapshotRow(id int) *service.Message {
	m := service.NewMessage(fmt.Appendf(nil, `{"id":%d}`, id))
	m.MetaSetMut("operation", "read")
	m.MetaSetMut("database_schema", "shop")
	m.MetaSetMut("table", "orders")
	m.MetaSetMut("key_columns", []any{"id"})
	return m
}

func write(t *testing.T, o *output, msgs ...*service.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := o.WriteBatch(ctx, service.MessageBatch(msgs)); err != nil {
		t.Fatal(err)
	}
}

// readCommitted returns every committed record of topic, waiting (bounded)
// until there are at least want.
func readCommitted(t *testing.T, c *kfake.Cluster, topic string, want int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	// Bounded, and long: on a loaded machine kfake and the race detector
	// have been seen to take over 10 s to show a committed record.
	deadline := time.Now().Add(40 * time.Second)
	for len(out) < want && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	// A short extra poll shows records beyond want (duplicates).
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { out = append(out, r) })
	cancel()
	if len(out) < want {
		explainShortfall(t, c, topic, len(out))
	}
	return out
}

// explainShortfall logs, for a read that found fewer committed records than
// expected, each partition's high watermark and last stable offset and the
// records (this writer's, one by one) and transaction markers a
// read_uncommitted consumer sees: a transaction left open shows as a last
// stable offset below the watermark, records never written as the same
// count both ways, and an acknowledged write that was aborted as an ABORT
// marker after its records.
func explainShortfall(t *testing.T, c *kfake.Cluster, topic string, committed int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic), kgo.KeepControlRecords(),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Logf("shortfall of %s: no client: %v", topic, err)
		return
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, _ := adm.ListEndOffsets(ctx, topic)
	stable, _ := adm.ListCommittedOffsets(ctx, topic)
	ends.Each(func(o kadm.ListedOffset) {
		s, _ := stable.Lookup(o.Topic, o.Partition)
		t.Logf("shortfall of %s: partition %d high watermark %d, last stable offset %d", topic, o.Partition, o.Offset, s.Offset)
	})
	uncommitted := 0
	foreign := 0
	for range 8 {
		pctx, pcancel := context.WithTimeout(ctx, 500*time.Millisecond)
		cl.PollFetches(pctx).EachRecord(func(r *kgo.Record) {
			if r.Attrs.IsControl() {
				typ := "commit"
				if len(r.Key) >= 4 && r.Key[3] == 0 {
					typ = "ABORT"
				}
				t.Logf("shortfall of %s: %d/%d control %s pid=%d epoch=%d", topic, r.Partition, r.Offset, typ, r.ProducerID, r.ProducerEpoch)
				return
			}
			uncommitted++
			if header(r, headerWriter) == "" {
				foreign++
				return
			}
			t.Logf("shortfall of %s: read_uncommitted %d/%d tso=%q writer=%q pid=%d epoch=%d txn=%v", topic, r.Partition, r.Offset, header(r, "tso"), header(r, headerWriter), r.ProducerID, r.ProducerEpoch, r.Attrs.IsTransactional())
		})
		pcancel()
	}
	t.Logf("shortfall of %s: %d foreign records not listed", topic, foreign)
	t.Logf("shortfall of %s: %d records read_committed, %d read_uncommitted", topic, committed, uncommitted)
}

func header(r *kgo.Record, k string) string {
	for _, h := range r.Headers {
		if h.Key == k {
			return string(h.Value)
		}
	}
	return ""
}

const eoYAML = "topic: orders\nkey: '${! this.id }'\nexactly_once: true\ntransactional_id: t1\nmax_in_flight: 1\n"

func TestExactlyOnceDropsReplayedChanges(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(3, "orders"))
	o := newOutput(t, c, eoYAML)
	var first []*service.Message
	for i := range 10 {
		first = append(first, change(i%4, int64(100+i), 0, "insert"))
	}
	write(t, o, snapshotRow(1))
	write(t, o, first...)
	_ = o.Close(context.Background())

	// A restart that replays from an older position, the way doris_binlog
	// re-sends what was not acked, plus a snapshot row again.
	o2 := newOutput(t, c, eoYAML)
	var replay []*service.Message
	for i := 5; i < 15; i++ {
		replay = append(replay, change(i%4, int64(100+i), 0, "insert"))
	}
	write(t, o2, snapshotRow(1))
	write(t, o2, replay...)

	recs := readCommitted(t, c, "orders", 17)
	seen := map[string]int{}
	snaps := 0
	for _, r := range recs {
		if header(r, "tso") == "" {
			snaps++
			continue
		}
		seen[header(r, "tso")]++
		if header(r, "operation") != "insert" || header(r, "table") != "orders" || header(r, "database_schema") != "shop" || header(r, "lsn") != "0" {
			t.Errorf("position headers of %s: %v", r.Value, r.Headers)
		}
	}
	for i := range 15 {
		if n := seen[fmt.Sprint(100+i)]; n != 1 {
			t.Errorf("tso %d written %d times; want once", 100+i, n)
		}
	}
	if snaps != 2 {
		t.Errorf("snapshot rows stay at least once: got %d copies, want 2", snaps)
	}
}

func TestExactlyOnceKeepsKeyOrderPerPartition(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(4, "orders"))
	o := newOutput(t, c, eoYAML)
	var msgs []*service.Message
	for i := range 40 {
		msgs = append(msgs, change(i%7, int64(1000+i), int64(i%3), "update_after"))
	}
	write(t, o, msgs[:20]...)
	write(t, o, msgs[10:]...) // overlapping replay
	recs := readCommitted(t, c, "orders", 40)
	if len(recs) != 40 {
		t.Fatalf("%d records; want 40", len(recs))
	}
	parts := map[string]int32{}
	last := map[string]string{}
	for _, r := range recs {
		k := string(r.Key)
		if p, ok := parts[k]; ok && p != r.Partition {
			t.Errorf("key %s in partitions %d and %d", k, p, r.Partition)
		}
		parts[k] = r.Partition
		if tso := header(r, "tso"); tso <= last[k] {
			t.Errorf("key %s: tso %s after %s", k, tso, last[k])
		}
		last[k] = header(r, "tso")
	}
	// The partition is Kafka's murmur2 of the key, as franz-go's default
	// producer (and the Java client) picks it.
	hash := kgo.StickyKeyPartitioner(nil).ForTopic("orders")
	for k, p := range parts {
		if want := int32(hash.Partition(&kgo.Record{Key: []byte(k)}, 4)); want != p {
			t.Errorf("key %s in partition %d; murmur2 gives %d", k, p, want)
		}
	}
}

// An aborted transaction at the end of a partition is not its tail: the
// changes it held were never visible and must be written.
func TestExactlyOnceIgnoresAbortedTail(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, change(1, 100, 0, "insert"))
	_ = o.Close(context.Background())

	zombie, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("t1"), kgo.DefaultProduceTopic("orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer zombie.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := zombie.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := range 300 { // more than the first tail window
		r := &kgo.Record{Value: []byte(`{"id":2}`), Headers: []kgo.RecordHeader{{Key: "tso", Value: fmt.Appendf(nil, "%d", 200+i)},
			{Key: "database_schema", Value: []byte("shop")}, {Key: "table", Value: []byte("orders")}, {Key: "lsn", Value: []byte("0")}, {Key: "operation", Value: []byte("insert")}}}
		if err := zombie.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := zombie.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}

	o2 := newOutput(t, c, eoYAML)
	write(t, o2, change(1, 100, 0, "insert"), change(2, 200, 0, "insert"))
	recs := readCommitted(t, c, "orders", 2)
	if len(recs) != 2 || header(recs[0], "tso") != "100" || header(recs[1], "tso") != "200" {
		var got []string
		for _, r := range recs {
			got = append(got, header(r, "tso"))
		}
		t.Fatalf("committed tsos %v; want [100 200]", got)
	}
}

func TestExactlyOnceFencesOlderWriter(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	old := newOutput(t, c, eoYAML)
	write(t, old, change(1, 100, 0, "insert"))
	_ = newOutput(t, c, eoYAML)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := old.WriteBatch(ctx, service.MessageBatch{change(1, 101, 0, "insert")})
	if err == nil {
		t.Fatal("the older writer with the same transactional_id still wrote")
	}
	if recs := readCommitted(t, c, "orders", 1); len(recs) != 1 {
		t.Fatalf("%d committed records; want 1", len(recs))
	}
}

func TestRecordsKeyHeadersTimestamp(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(2, "doris.shop.orders"))
	o := newOutput(t, c, `topic: 'doris.${! @database_schema }.${! @table }'
key: '${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
timestamp_ms: '${! 1700000000123 }'
metadata:
  include_patterns: [ '^(operation|tso|key_columns)$' ]
`)
	write(t, o, change(7, 100, 3, "delete"))
	recs := readCommitted(t, c, "doris.shop.orders", 1)
	if len(recs) != 1 {
		t.Fatalf("%d records; want 1", len(recs))
	}
	r := recs[0]
	if string(r.Key) != "7" || string(r.Value) != `{"id":7}` || r.Timestamp.UnixMilli() != 1700000000123 {
		t.Errorf("record key %q value %s ts %d", r.Key, r.Value, r.Timestamp.UnixMilli())
	}
	if header(r, "operation") != "delete" || header(r, "tso") != "100" || header(r, "lsn") != "" || header(r, "key_columns") != `["id"]` || len(r.Headers) != 3 {
		t.Errorf("headers %v; want only operation, tso and key_columns (as JSON)", r.Headers)
	}
}

func TestManualPartition(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(3, "orders"))
	o := newOutput(t, c, "topic: orders\npartitioner: manual\npartition: '${! 2 }'\n")
	write(t, o, snapshotRow(1), snapshotRow(2))
	for _, r := range readCommitted(t, c, "orders", 2) {
		if r.Partition != 2 {
			t.Errorf("record in partition %d; want 2", r.Partition)
		}
	}
	o2 := newOutput(t, c, "topic: orders\npartitioner: manual\npartition: '${! 9 }'\nexactly_once: true\ntransactional_id: m\nmax_in_flight: 1\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := o2.WriteBatch(ctx, service.MessageBatch{snapshotRow(1)})
	if err == nil || !strings.Contains(err.Error(), "partition 9 of topic orders does not exist") {
		t.Fatalf("error %v; want one naming partition 9", err)
	}
}

func TestEmptyBodyIsTombstone(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, "topic: orders\nkey: '${! @row_key }'\n")
	tomb := service.NewMessage(nil)
	tomb.MetaSetMut("row_key", "7")
	write(t, o, tomb)
	recs := readCommitted(t, c, "orders", 1)
	if len(recs) != 1 || recs[0].Value != nil || string(recs[0].Key) != "7" {
		t.Fatalf("an empty body must be a null value (tombstone) with its key; got %v", recs)
	}
}

func TestSASLWrongPasswordFailsWithoutPrintingIt(t *testing.T) {
	c := startCluster(t, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "doris", "right-pw"))
	o := buildOutput(t, fmt.Sprintf("seed_brokers: [ %s ]\ntopic: t\ntimeout: 2s\nsasl:\n  - mechanism: SCRAM-SHA-256\n    username: doris\n    password: wrong-pw-1234\n", c.ListenAddrs()[0]))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := o.Connect(ctx)
	if err == nil {
		t.Fatal("connected with a wrong password")
	}
	if strings.Contains(err.Error(), "wrong-pw-1234") || !strings.Contains(err.Error(), c.ListenAddrs()[0]) {
		t.Fatalf("error %q must name the broker and never hold the password", err)
	}
}
