package crash

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// topicConsumer reads every committed record of the topics matching a
// pattern, from their start, as a read_committed consumer downstream would.
type topicConsumer struct {
	mu   sync.Mutex
	recs []*kgo.Record
}

func consumeTopics(t *testing.T, brokers []string, pattern string) *topicConsumer {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeRegex(), kgo.ConsumeTopics(pattern),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.MetadataMinAge(100*time.Millisecond), kgo.MetadataMaxAge(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &topicConsumer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			c.mu.Lock()
			fs.EachRecord(func(r *kgo.Record) { c.recs = append(c.recs, r) })
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cl.Close() })
	return c
}

func (c *topicConsumer) records() []*kgo.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*kgo.Record(nil), c.recs...)
}

// waitChanges waits (bounded) until every change of want has been read,
// and fails when r exits first.
func (c *topicConsumer) waitChanges(t *testing.T, timeout time.Duration, want map[tableChange]bool, r *run) []*kgo.Record {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		recs := c.records()
		if countKafkaChanges(want, recs).lost == 0 {
			return recs
		}
		if r.exited() {
			t.Fatalf("run %d exited early (%v)", r.no, r.waitErr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the topics did not hold every change within %s: %d of %d lost", timeout, countKafkaChanges(want, recs).lost, len(want))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitNew waits (bounded) until a record arrives while r runs; false when
// none did.
func (c *topicConsumer) waitNew(r *run, timeout time.Duration) bool {
	n := len(c.records())
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && !r.exited() {
		if len(c.records()) > n {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// settle returns the records once no new one has arrived for quiet, or
// after at most limit.
func (c *topicConsumer) settle(t *testing.T, quiet, limit time.Duration) []*kgo.Record {
	t.Helper()
	deadline := time.Now().Add(limit)
	n, since := len(c.records()), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if m := len(c.records()); m != n {
			n, since = m, time.Now()
		} else if time.Since(since) >= quiet {
			break
		}
	}
	return c.records()
}

// tableChange is one binlog change of a kc table.
type tableChange struct {
	table string
	changeRow
}

// kafkaFigures is what the records hold against the source's changes.
type kafkaFigures struct {
	records  int // binlog records (snapshot rows carry no position)
	dups     int // records of a change read before
	lost     int // changes of the source no record holds
	extra    int // records of changes the source never had
	disorder []string
}

// countKafkaChanges compares the binlog records with want and checks that
// the first record of each change sits, per topic and key, in one
// partition and in increasing (tso, lsn, op) order. Duplicates are left out
// of the order check: an at-least-once replay writes older changes again.
func countKafkaChanges(want map[tableChange]bool, recs []*kgo.Record) kafkaFigures {
	var f kafkaFigures
	seen := map[tableChange]bool{}
	type last struct {
		partition int32
		pos       [3]int64
	}
	keys := map[string]last{}
	for _, r := range recs {
		if r.Value == nil {
			continue // a delete's tombstone (see checkTombstones)
		}
		ch, pos, ok, err := recordChange(r)
		if err != nil {
			f.disorder = append(f.disorder, err.Error())
			continue
		}
		if !ok {
			continue
		}
		f.records++
		if seen[ch] {
			f.dups++
			continue
		}
		seen[ch] = true
		if !want[ch] {
			f.extra++
		}
		k := r.Topic + "/" + string(r.Key)
		if l, ok := keys[k]; ok {
			switch {
			case l.partition != r.Partition:
				f.disorder = append(f.disorder, fmt.Sprintf("key %s in partitions %d and %d", k, l.partition, r.Partition))
			case !posLess(l.pos, pos):
				f.disorder = append(f.disorder, fmt.Sprintf("key %s: change %v after %v", k, pos, l.pos))
			}
		}
		keys[k] = last{r.Partition, pos}
	}
	for c := range want {
		if !seen[c] {
			f.lost++
		}
	}
	return f
}

// recordChange reads a record's position from its headers; ok is false for
// a snapshot row, which has none.
func recordChange(r *kgo.Record) (ch tableChange, pos [3]int64, ok bool, err error) {
	h := map[string]string{}
	for _, x := range r.Headers {
		h[x.Key] = string(x.Value)
	}
	if _, has := h["tso"]; !has || isMarkerRecord(h) {
		return ch, pos, false, nil
	}
	tso, err1 := strconv.ParseInt(h["tso"], 10, 64)
	lsn, err2 := strconv.ParseInt(h["lsn"], 10, 64)
	op, known := opCode[h["operation"]]
	if err1 != nil || err2 != nil || !known || h["table"] == "" {
		return ch, pos, false, fmt.Errorf("record %s/%d@%d has a broken position: %v", r.Topic, r.Partition, r.Offset, h)
	}
	return tableChange{h["table"], changeRow{tso: tso, lsn: lsn, op: h["operation"]}}, [3]int64{tso, lsn, op}, true, nil
}

func posLess(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
