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
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/internal/testlog"
)

// newLoggedOutput is newOutput with its log kept.
func newLoggedOutput(t *testing.T, c *kfake.Cluster, y string) (*output, *testlog.Sink) {
	t.Helper()
	return newLoggedOutputTimeout(t, c, 5*time.Second, y)
}

func newLoggedOutputTimeout(t *testing.T, c *kfake.Cluster, timeout time.Duration, y string) (*output, *testlog.Sink) {
	t.Helper()
	o := buildOutput(t, fmt.Sprintf("seed_brokers: [ %s ]\ntimeout: %s\n%s", c.ListenAddrs()[0], timeout, y))
	log, sink := testlog.New()
	o.log = log
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := o.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o, sink
}

// changeRange are inserts of tso 100+from to 100+to-1 over five keys.
func changeRange(from, to int) []*service.Message {
	var out []*service.Message
	for i := from; i < to; i++ {
		out = append(out, change(i%5, int64(100+i), 0, "insert"))
	}
	return out
}

// checkOnce checks that topic orders holds tso 100+i exactly once for every
// i below n.
func checkOnce(t *testing.T, c *kfake.Cluster, n int) {
	t.Helper()
	seen := map[string]int{}
	for _, r := range readCommitted(t, c, "orders", n) {
		seen[header(r, "tso")]++
	}
	for i := range n {
		if k := seen[fmt.Sprint(100+i)]; k != 1 {
			t.Errorf("tso %d written %d times; want once", 100+i, k)
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct changes; want %d", len(seen), n)
	}
}

// A failure of any request of a write, once, is retried in place: the
// write succeeds and every change lands once. Handed back to Benthos, the
// batch would come back after later batches and be dropped as written.
func TestExactlyOnceRetriesFailuresInPlace(t *testing.T) {
	for _, key := range []kmsg.Key{kmsg.Metadata, kmsg.ListOffsets, kmsg.Fetch, kmsg.AddPartitionsToTxn, kmsg.Produce, kmsg.EndTxn} {
		t.Run(key.Name(), func(t *testing.T) {
			opts := []kfake.Opt{kfake.SeedTopics(3, "orders")}
			if key == kmsg.AddPartitionsToTxn {
				// Kafka 4's transactions (KIP-890) add partitions with
				// the produce request itself.
				opts = append(opts, kfake.MaxVersions(kversion.V3_9_0()))
			}
			c := startCluster(t, opts...)
			first := newOutput(t, c, eoYAML)
			write(t, first, changeRange(0, 10)...)
			_ = first.Close(context.Background())

			// A restart: tails are read again (ListOffsets, Fetch).
			o, logs := newLoggedOutput(t, c, eoYAML)
			f := kfake.Fault{Keys: []kmsg.Key{key}, Topic: "orders"}
			if key == kmsg.EndTxn {
				f = kfake.Fault{Keys: []kmsg.Key{key}, TxnID: "t1", TopLevel: true}
			}
			h := c.Fault(f)
			write(t, o, changeRange(5, 20)...)
			wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := h.Wait(wctx, 1); err != nil {
				t.Fatalf("the %s fault was never hit: %v", key.Name(), err)
			}
			if len(logs.Lines("WARN", "trying again")) == 0 {
				t.Errorf("no retry was logged: %s", logs.Lines("", ""))
			}
			checkOnce(t, c, 20)
		})
	}
}

// An error that trying again cannot fix stops the output: the batch is
// handed back with an error naming the cause, and no later batch is
// written before it, nor is the output connected again.
func TestExactlyOnceStopsOnPermanentError(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
		bad              *service.Message
	}{
		{"interpolation", "key: '${! this.id.number() }'\n", "key interpolation", service.NewMessage([]byte(`{"id":"x"}`))},
		{"too large", "key: '${! this.id }'\nmax_message_bytes: 1KB\n", "MESSAGE_TOO_LARGE", service.NewMessage([]byte(`{"id":1,"pad":"` + strings.Repeat("x", 2000) + `"}`))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, kfake.SeedTopics(1, "orders"))
			o, logs := newLoggedOutput(t, c, "topic: orders\nexactly_once: true\ntransactional_id: t1\nmax_in_flight: 1\n"+tc.yaml)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := o.WriteBatch(ctx, service.MessageBatch{tc.bad})
			if err == nil || !doris.IsPermanent(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cannot be written") {
				t.Fatalf("error %v; want a permanent one naming %q", err, tc.want)
			}
			if len(logs.Lines("ERROR", tc.want)) != 1 {
				t.Errorf("the stop is not logged once at error level: %s", logs.Lines("", ""))
			}
			if err := o.WriteBatch(ctx, service.MessageBatch{change(1, 100, 0, "insert")}); err == nil {
				t.Fatal("a later batch was written after a batch was handed back")
			}
			if err := o.Connect(ctx); err == nil {
				t.Error("the stopped output connected again")
			}
			if recs := readCommitted(t, c, "orders", 0); len(recs) != 0 {
				t.Errorf("%d records written; want none", len(recs))
			}
		})
	}
}

// A writer fenced by a newer instance with its transactional_id stops with
// an error that says so, instead of reconnecting and fencing the newer one
// in turn.
func TestExactlyOnceFencedWriterStops(t *testing.T) {
	for _, v := range []*kversion.Versions{nil, kversion.V3_9_0()} {
		name := "newest"
		opts := []kfake.Opt{kfake.SeedTopics(1, "orders")}
		if v != nil {
			name = "kafka 3.9"
			opts = append(opts, kfake.MaxVersions(v))
		}
		t.Run(name, func(t *testing.T) { fencedWriterStops(t, startCluster(t, opts...)) })
	}
}

func fencedWriterStops(t *testing.T, c *kfake.Cluster) {
	old, logs := newLoggedOutput(t, c, eoYAML)
	write(t, old, change(1, 100, 0, "insert"))
	newer := newOutput(t, c, eoYAML)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := old.WriteBatch(ctx, service.MessageBatch{change(1, 101, 0, "insert")})
	if err == nil || !strings.Contains(err.Error(), `another instance took over transactional_id "t1"`) {
		t.Fatalf("the fenced writer's error %v; want one saying another instance took over", err)
	}
	if len(logs.Lines("ERROR", "another instance took over")) != 1 {
		t.Errorf("the fence is not logged once at error level: %s", logs.Lines("", ""))
	}
	if err := old.Connect(ctx); err == nil {
		t.Error("the fenced output connected again")
	}
	if err := old.WriteBatch(ctx, service.MessageBatch{change(1, 102, 0, "insert")}); err == nil {
		t.Error("the fenced output wrote again")
	}
	// The newer instance was not fenced back.
	write(t, newer, change(1, 101, 0, "insert"), change(1, 102, 0, "insert"))
	write(t, newer, change(1, 103, 0, "insert"))
	checkOnceFrom(t, c, 100, 4)
}

// checkOnceFrom checks that orders holds tso from..from+n-1 exactly once.
func checkOnceFrom(t *testing.T, c *kfake.Cluster, from, n int) {
	t.Helper()
	seen := map[string]int{}
	for _, r := range readCommitted(t, c, "orders", n) {
		seen[header(r, "tso")]++
	}
	for i := range n {
		if k := seen[fmt.Sprint(from+i)]; k != 1 {
			t.Errorf("tso %d written %d times; want once", from+i, k)
		}
	}
}

// Partitions added while the output runs stop it before the next write;
// a restart writes onto the new count.
func TestExactlyOnceStopsWhenPartitionsAreAdded(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(3, "orders"))
	o, _ := newLoggedOutput(t, c, eoYAML)
	write(t, o, changeRange(0, 10)...)

	adm := kadm.NewClient(newAdminClient(t, c))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := adm.CreatePartitions(ctx, 3, "orders"); err != nil {
		t.Fatal(err)
	}
	err := o.WriteBatch(ctx, service.MessageBatch(changeRange(10, 20)))
	if err == nil || !doris.IsPermanent(err) || !strings.Contains(err.Error(), "topic orders has 6 partitions now") || !strings.Contains(err.Error(), "onto 3") {
		t.Fatalf("error %v; want a stop naming the topic and both counts", err)
	}
	_ = o.Close(context.Background())

	o2 := newOutput(t, c, eoYAML)
	write(t, o2, changeRange(10, 20)...)
	checkOnce(t, c, 20)
	parts := map[int32]bool{}
	for _, r := range readCommitted(t, c, "orders", 20) {
		parts[r.Partition] = true
	}
	hash := kgo.StickyKeyPartitioner(nil).ForTopic("orders")
	for k := range 5 {
		if p := int32(hash.Partition(&kgo.Record{Key: []byte(fmt.Sprint(k))}, 6)); p >= 3 && !parts[p] {
			t.Errorf("key %d hashes to new partition %d, which holds nothing after the restart", k, p)
		}
	}
}

func newAdminClient(t *testing.T, c *kfake.Cluster) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Another producer's open transaction holds a partition's last stable
// offset back, below records this output committed after it began. The
// tail read waits for it, logging the partition, within timeout, and the
// write is tried again until the transaction ends: nothing is written
// twice.
func TestTailReadWaitsForAnOpenTransaction(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, change(1, 100, 0, "insert"))
	other, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("other"), kgo.DefaultProduceTopic("orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := other.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := other.ProduceSync(ctx, &kgo.Record{Value: []byte(`{"other":1}`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	write(t, o, change(1, 101, 0, "insert"))
	_ = o.Close(context.Background())

	// A restart replays 101 while the other transaction is still open.
	o2, logs := newLoggedOutputTimeout(t, c, time.Second, eoYAML)
	done := make(chan error, 1)
	go func() {
		done <- o2.WriteBatch(ctx, service.MessageBatch{change(1, 101, 0, "insert"), change(1, 102, 0, "insert")})
	}()
	waitLog := func(level, sub string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for len(logs.Lines(level, sub)) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("no %s line with %q; logs: %s", level, sub, logs.Lines("", ""))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitLog("WARN", "the tail read of orders/0 waits for an open transaction")
	// The wait is bounded: past timeout the attempt fails, naming the
	// partition, and is tried again. On a loaded machine an attempt can
	// fail first for another reason (a request of its own past the 1s
	// timeout), so the line looked for is the one of the wait.
	waitLog("WARN", "the tail read of [orders/0 (last stable offset")
	named := false
	for _, l := range logs.Lines("WARN", "the tail read of [orders/0 (last stable offset") {
		named = named || strings.Contains(l, "trying again")
	}
	if !named {
		t.Errorf("the bounded wait did not end in a retry naming the partition: %s", logs.Lines("WARN", ""))
	}
	select {
	case err := <-done:
		t.Fatalf("the write ended (%v) while the other transaction was open", err)
	default:
	}
	if err := other.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	recs := readCommitted(t, c, "orders", 4)
	var got []string
	for _, r := range recs {
		got = append(got, header(r, "tso"))
	}
	if fmt.Sprint(got) != "[100  101 102]" {
		t.Fatalf("committed tsos %q; want 100, the other producer's record, 101 and 102, each once", got)
	}
}
