// Package kafkae2e runs doris_binlog streams against dorissim into the
// kafka_franz output and an in-process Kafka cluster (kfake), and reads the
// topics back with read_committed consumers.
package kafkae2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"

	_ "github.com/rpconnect-doris/rpconnect-doris/kafka"
)

func startKafka(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// cdcOutput is the kafka_franz output of config/database_to_kafka.yaml on
// brokers; extra lines are added as fields.
func cdcOutput(brokers []string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kafka_franz:\n  seed_brokers: [ %s ]\n", strings.Join(brokers, ", "))
	b.WriteString(`  topic: 'doris.${! @database_schema }.${! @table }'
  key: '${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
  metadata:
    include_patterns: [ '^(operation|tso|lsn|database_schema|table|commit_ts_ms)$' ]
  max_in_flight: 1
`)
	for _, e := range extra {
		harness.Indent(&b, e)
	}
	return b.String()
}

// stream is a running doris_binlog → kafka_franz stream.
type stream struct {
	s    *service.Stream
	done chan error
}

func startStream(t *testing.T, input, resources, output string, metrics ...*harness.MetricsCapture) *stream {
	t.Helper()
	b := service.NewStreamBuilder()
	for _, m := range metrics {
		if err := b.SetMetricsYAML(m.YAML(t)); err != nil {
			t.Fatal(err)
		}
	}
	level := "NONE"
	if l := os.Getenv("HARNESS_LOG_LEVEL"); l != "" {
		level = l
	}
	if err := b.SetLoggerYAML("level: " + level); err != nil {
		t.Fatal(err)
	}
	return runStream(t, b, input, resources, output)
}

// runStream adds the input, resources and output to b and runs the stream
// on one pipeline thread until the test ends.
func runStream(t *testing.T, b *service.StreamBuilder, input, resources, output string) *stream {
	t.Helper()
	b.SetThreads(1)
	if err := b.AddResourcesYAML(resources); err != nil {
		t.Fatalf("resources: %v", err)
	}
	if err := b.AddInputYAML(input); err != nil {
		t.Fatalf("input: %v", err)
	}
	if err := b.AddOutputYAML(output); err != nil {
		t.Fatalf("output: %v", err)
	}
	s, err := b.Build()
	if err != nil {
		t.Fatalf("building stream: %v", err)
	}
	st := &stream{s: s, done: make(chan error, 1)}
	go func() { st.done <- s.Run(context.Background()) }()
	t.Cleanup(func() { _ = st.stop(10 * time.Second) })
	return st
}

func (st *stream) stop(d time.Duration) error {
	select {
	case err := <-st.done:
		st.done <- err
		return err
	default:
	}
	if err := st.s.StopWithin(d); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	err := <-st.done
	st.done <- err
	return err
}

// consumer reads every committed record of the doris.* topics.
type consumer struct {
	cl     *kgo.Client
	mu     sync.Mutex
	recs   []*kgo.Record
	cancel context.CancelFunc
	done   chan struct{}
}

func consume(t *testing.T, brokers []string, opts ...kgo.Opt) *consumer {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ConsumeRegex(), kgo.ConsumeTopics(`^doris\..*`),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.MetadataMinAge(100 * time.Millisecond), kgo.MetadataMaxAge(200 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &consumer{cl: cl, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			c.mu.Lock()
			fs.EachRecord(func(r *kgo.Record) { c.recs = append(c.recs, r) })
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-c.done; cl.Close() })
	return c
}

func (c *consumer) records() []*kgo.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*kgo.Record(nil), c.recs...)
}

// waitFor waits (bounded) until cond holds for the records read so far.
func (c *consumer) waitFor(t *testing.T, timeout time.Duration, what string, cond func([]*kgo.Record) bool) []*kgo.Record {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		recs := c.records()
		if cond(recs) {
			return recs
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s (%d records)", timeout, what, len(recs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func header(r *kgo.Record, k string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == k {
			return string(h.Value), true
		}
	}
	return "", false
}

var opCodes = map[string]int64{"insert": 0, "delete": 1, "update_before": 2, "update_after": 3, "update": 3}

// event turns a record into the harness's event, from its body and headers.
func event(t *testing.T, r *kgo.Record) harness.Event {
	t.Helper()
	ev := harness.Event{Phase: "snapshot", Body: string(r.Value)}
	dec := json.NewDecoder(strings.NewReader(string(r.Value)))
	dec.UseNumber()
	if err := dec.Decode(&ev.Row); err != nil {
		t.Fatalf("record %s/%d@%d body is not a JSON object: %s", r.Topic, r.Partition, r.Offset, r.Value)
	}
	ev.Operation, _ = header(r, "operation")
	ev.Database, _ = header(r, "database_schema")
	ev.Table, _ = header(r, "table")
	if tso, ok := header(r, "tso"); ok {
		lsn, _ := header(r, "lsn")
		ev.Phase, ev.Op = "binlog", opCodes[ev.Operation]
		var err1, err2 error
		ev.TSO, err1 = strconv.ParseInt(tso, 10, 64)
		ev.LSN, err2 = strconv.ParseInt(lsn, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("record %s/%d@%d: tso %q lsn %q", r.Topic, r.Partition, r.Offset, tso, lsn)
		}
	}
	return ev
}

// posKey identifies one change.
func posKey(ev harness.Event) string {
	return fmt.Sprintf("%s.%s@%d/%d/%d", ev.Database, ev.Table, ev.TSO, ev.LSN, ev.Op)
}

// tableEvents is the binlog events of topic in position order, with the
// number of changes seen more than once.
func tableEvents(t *testing.T, recs []*kgo.Record, topic string) (evs []harness.Event, dups int) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Topic != topic {
			continue
		}
		ev := event(t, r)
		if ev.Phase != "binlog" {
			continue
		}
		if k := posKey(ev); seen[k] {
			dups++
			continue
		} else {
			seen[k] = true
		}
		evs = append(evs, ev)
	}
	sort.Slice(evs, func(i, j int) bool {
		a, b := evs[i].Pos(), evs[j].Pos()
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	return evs, dups
}

// checkKeyOrder checks that records of one key sit in one partition, in
// increasing (tso, lsn, op) order.
func checkKeyOrder(t *testing.T, recs []*kgo.Record) {
	t.Helper()
	type state struct {
		partition int32
		pos       [3]int64
	}
	last := map[string]state{}
	for _, r := range recs {
		ev := event(t, r)
		if ev.Phase != "binlog" {
			continue
		}
		k := r.Topic + "/" + string(r.Key)
		if s, ok := last[k]; ok {
			if s.partition != r.Partition {
				t.Errorf("key %s in partitions %d and %d", k, s.partition, r.Partition)
			}
			p := ev.Pos()
			if !(s.pos[0] < p[0] || s.pos[0] == p[0] && (s.pos[1] < p[1] || s.pos[1] == p[1] && s.pos[2] < p[2])) {
				t.Errorf("key %s: change %v after %v", k, p, s.pos)
			}
		}
		last[k] = state{r.Partition, ev.Pos()}
	}
}
