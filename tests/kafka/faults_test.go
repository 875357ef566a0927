package kafkae2e

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestBinlogIntoKafkaSurvivesInjectedFailures injects one failure of each
// request an exactly_once write makes (metadata, ListOffsets, the tail
// read's fetch, AddPartitionsToTxn, EndTxn) into a doris_binlog stream, one
// run per failure, each run going on from the last one's checkpoint with
// new changes: every change must still arrive exactly once. A failed write
// handed back to Benthos came back after the batches behind it were
// committed, and was dropped as already written.
func TestBinlogIntoKafkaSurvivesInjectedFailures(t *testing.T) {
	srv, start := shopSim(t)
	// Kafka 3.9's transactions add partitions with AddPartitionsToTxn;
	// Kafka 4's do it inside the produce request.
	kc := startKafka(t, kfake.MaxVersions(kversion.V3_9_0()))
	brokers := kc.ListenAddrs()
	const topic = "doris.shop.orders"
	in := harness.SelectYAML(srv, `include: ['shop\.orders']`, "scan_mode: from-timestamp", `scan_timestamp: "`+start+`"`, "batch_size: 10")
	out := cdcOutput(brokers, "exactly_once: true", "transactional_id: faults-e2e", "timeout: 3s")
	cache := harness.FileCache(t.TempDir())
	w := harness.NewWorkload(srv, "shop", "orders", 21)
	if err := w.Insert(ctxTimeout(t, 30*time.Second), 20); err != nil {
		t.Fatal(err)
	}
	for _, f := range []kfake.Fault{
		// The first run's first write counts the topic's partitions...
		{Keys: []kmsg.Key{kmsg.Metadata}, Topic: topic},
		// ...and every run's first write reads the partitions' tails.
		{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: topic},
		{Keys: []kmsg.Key{kmsg.Fetch}, Topic: topic},
		{Keys: []kmsg.Key{kmsg.AddPartitionsToTxn}, Topic: topic},
		{Keys: []kmsg.Key{kmsg.EndTxn}, TxnID: "faults-e2e", TopLevel: true},
	} {
		name := f.Keys[0].Name()
		// Several batches wait when the run starts: the failed one has
		// batches behind it.
		runWorkload(t, w, 30)
		// The consumer starts once the fault was hit, so that it hits the
		// output.
		h := kc.Fault(f)
		run := startStream(t, in, cache, out)
		waitFaults(t, h, 1, name)
		c := consume(t, brokers)
		waitChangesOnce(t, srv, c, start, "the changes after a "+name+" failure")
		if err := run.stop(20 * time.Second); err != nil {
			t.Fatalf("stopping the run: %v", err)
		}
		c.cancel()
		<-c.done
	}
}

func waitFaults(t *testing.T, h *kfake.FaultHandle, n int, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.Wait(ctx, n); err != nil {
		t.Fatalf("the injected %s failure was not hit: %v", what, err)
	}
}

// binlogChanges is every change of shop.orders from start until now, as
// "tso/lsn/operation".
func binlogChanges(t *testing.T, srv *dorissim.Server, start string) map[string]bool {
	t.Helper()
	time.Sleep(1100 * time.Millisecond) // the last change's second is over
	end := harness.Now(t, srv)
	res, err := srv.Query(ctxTimeout(t, time.Minute), "SELECT `__DORIS_BINLOG_TSO__`, `__DORIS_BINLOG_LSN__`, `__DORIS_BINLOG_OP__` FROM `shop`.`orders`@incr('startTimestamp' = '"+
		start+"', 'endTimestamp' = '"+end+"', 'incrementType' = 'DETAIL')")
	if err != nil {
		t.Fatalf("reading the binlog of shop.orders: %v", err)
	}
	names := map[string]string{"0": "insert", "1": "delete", "2": "update_before", "3": "update_after"}
	out := map[string]bool{}
	for _, r := range res {
		out[fmt.Sprintf("%v/%v/%s", r[0], r[1], names[fmt.Sprint(r[2])])] = true
	}
	return out
}

// waitChangesOnce waits until the consumer holds every binlog change of
// shop.orders, then checks that none came twice and the key order.
func waitChangesOnce(t *testing.T, srv *dorissim.Server, c *consumer, start, what string) {
	t.Helper()
	want := binlogChanges(t, srv, start)
	count := func(recs []*kgo.Record) (got map[string]int, lost []string) {
		got = map[string]int{}
		for _, r := range recs {
			if r.Topic != "doris.shop.orders" {
				continue
			}
			tso, ok := header(r, "tso")
			if !ok {
				continue
			}
			lsn, _ := header(r, "lsn")
			op, _ := header(r, "operation")
			got[tso+"/"+lsn+"/"+op]++
		}
		for k := range want {
			if got[k] == 0 {
				lost = append(lost, k)
			}
		}
		sort.Strings(lost)
		return got, lost
	}
	var lost []string
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, lost = count(c.records())
		if len(lost) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %d of %d changes lost, e.g. %v", what, len(lost), len(want), lost[:min(5, len(lost))])
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // a duplicate would arrive by now
	recs := c.records()
	got, _ := count(recs)
	for k, n := range got {
		if !want[k] {
			t.Errorf("change %s is not in the binlog", k)
		}
		if n > 1 {
			t.Errorf("change %s written %d times", k, n)
		}
	}
	checkKeyOrder(t, recs)
	t.Logf("%s: changes=%d lost=0", what, len(want))
}
