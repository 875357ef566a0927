package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// describe is the records as "key:op" ("key:null" for a null value), in
// offset order per partition.
func describe(recs []*kgo.Record) string {
	var out []string
	for _, r := range recs {
		what := header(r, "operation")
		if r.Value == nil {
			what = "null"
		}
		out = append(out, fmt.Sprintf("%d/%s:%s@%s", r.Partition, r.Key, what, header(r, "tso")))
	}
	return strings.Join(out, " ")
}

// byPartition orders recs by partition, then offset.
func byPartition(recs []*kgo.Record, partitions int32) []*kgo.Record {
	var out []*kgo.Record
	for p := range partitions {
		for _, r := range recs {
			if r.Partition == p {
				out = append(out, r)
			}
		}
	}
	return out
}

const tombYAML = eoYAML + "delete_tombstones: true\n"

// With delete_tombstones each delete is followed, in its partition, by a
// null value of its key that carries its position; a replay writes neither
// again.
func TestDeleteTombstonesExactlyOnce(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	batch := func() []*service.Message {
		return []*service.Message{change(1, 100, 0, "insert"), change(1, 101, 0, "delete"), change(2, 102, 0, "update_before"),
			change(2, 102, 0, "update_after"), change(2, 103, 0, "delete")}
	}
	o := newOutput(t, c, tombYAML)
	write(t, o, batch()...)
	_ = o.Close(context.Background())
	o2 := newOutput(t, c, tombYAML)
	write(t, o2, append(batch(), change(3, 104, 0, "insert"), change(3, 105, 0, "delete"))...)

	recs := readCommitted(t, c, "orders", 10)
	want := "0/1:insert@100 0/1:delete@101 0/1:null@101 0/2:update_before@102 0/2:update_after@102 0/2:delete@103 0/2:null@103 " +
		"0/3:insert@104 0/3:delete@105 0/3:null@105"
	if got := describe(recs); got != want {
		t.Fatalf("records\n%s\nwant\n%s", got, want)
	}
	for _, r := range recs {
		if r.Value == nil && (header(r, "lsn") != "0" || header(r, "table") != "orders" || header(r, headerWriter) != "t1") {
			t.Errorf("tombstone headers %v; want the delete's position and the writer", r.Headers)
		}
	}
}

// A partition whose last record is a delete without its tombstone (written
// before delete_tombstones was set) gets the tombstone on replay, once; a
// partition whose last record is the tombstone gets nothing again.
func TestDeleteTombstonesAfterATailDelete(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	o := newOutput(t, c, eoYAML)
	write(t, o, change(1, 100, 0, "insert"), change(1, 101, 0, "delete"))
	_ = o.Close(context.Background())
	for range 2 {
		o2 := newOutput(t, c, tombYAML)
		write(t, o2, change(1, 100, 0, "insert"), change(1, 101, 0, "delete"))
		_ = o2.Close(context.Background())
	}
	want := "0/1:insert@100 0/1:delete@101 0/1:null@101"
	if got := describe(readCommitted(t, c, "orders", 3)); got != want {
		t.Fatalf("records %s; want %s", got, want)
	}
}

// A tombstone a pipeline makes itself (an empty-body copy after its delete,
// with the same metadata) is the delete's second record too: it is kept,
// and a replay writes neither again.
func TestExactlyOnceKeepsEmptyBodyCopyOfDelete(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	// The copy's key cannot come from its (empty) body.
	y := strings.Replace(eoYAML, "${! this.id }", "${! @row_id }", 1)
	pair := func() []*service.Message {
		ins, del := change(1, 100, 0, "insert"), change(1, 101, 0, "delete")
		ins.MetaSetMut("row_id", "1")
		del.MetaSetMut("row_id", "1")
		tomb := del.Copy()
		tomb.SetBytes(nil)
		return []*service.Message{ins, del, tomb}
	}
	o := newOutput(t, c, y)
	write(t, o, pair()...)
	_ = o.Close(context.Background())
	o2 := newOutput(t, c, y)
	write(t, o2, pair()...)
	want := "0/1:insert@100 0/1:delete@101 0/1:null@101"
	if got := describe(readCommitted(t, c, "orders", 3)); got != want {
		t.Fatalf("records %s; want %s", got, want)
	}
}

// Without exactly_once the tombstone follows its delete into the key's
// partition too.
func TestDeleteTombstonesAtLeastOnce(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(4, "orders"))
	o := newOutput(t, c, "topic: orders\nkey: '${! this.id }'\ndelete_tombstones: true\nmetadata:\n  include_patterns: [ '^(operation|tso)$' ]\n")
	var msgs []*service.Message
	for i := range 8 {
		msgs = append(msgs, change(i, int64(100+i), 0, "insert"), change(i, int64(200+i), 0, "delete"))
	}
	write(t, o, msgs...)
	recs := readCommitted(t, c, "orders", 24)
	if len(recs) != 24 {
		t.Fatalf("%d records; want 24", len(recs))
	}
	hash := kgo.StickyKeyPartitioner(nil).ForTopic("orders")
	last := map[string]string{}
	for _, r := range byPartition(recs, 4) {
		if want := int32(hash.Partition(&kgo.Record{Key: r.Key}, 4)); r.Partition != want {
			t.Errorf("key %s in partition %d; want %d", r.Key, r.Partition, want)
		}
		what := header(r, "operation")
		if r.Value == nil {
			what = "null"
		}
		if what == "null" && last[string(r.Key)] != "delete" {
			t.Errorf("key %s: a tombstone after %q; want right after the delete", r.Key, last[string(r.Key)])
		}
		last[string(r.Key)] = what
	}
	for k, v := range last {
		if v != "null" {
			t.Errorf("key %s ends in %q; want its tombstone", k, v)
		}
	}
}

func TestDeleteTombstonesNeedAKey(t *testing.T) {
	pc, err := Spec().ParseYAML("seed_brokers: [ x:9092 ]\ntopic: t\ndelete_tombstones: true\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseConfig(pc); err == nil || !strings.Contains(err.Error(), "delete_tombstones needs key") {
		t.Fatalf("error %v; want one saying delete_tombstones needs key", err)
	}
	if err := lintOutput(t, "delete_tombstones: true"); err == nil || !strings.Contains(err.Error(), "delete_tombstones needs key") {
		t.Fatalf("lint error %v; want one saying delete_tombstones needs key", err)
	}
}

// On a compacted topic the search for this writer's tail reads across the
// offsets compaction removed (here other writers' superseded records).
func TestExactlyOnceTailAcrossCompactedOffsets(t *testing.T) {
	c := startCluster(t)
	if err := c.CreateTopic("orders", 1, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	o := newOutput(t, c, tombYAML)
	write(t, o, change(1, 100, 0, "insert"), change(2, 101, 0, "insert"), change(1, 102, 0, "delete"))
	_ = o.Close(context.Background())
	foreign(t, c, 400) // one key: compaction keeps only the last
	foreign(t, c, 1)
	c.Compact()

	o2 := newOutput(t, c, tombYAML)
	write(t, o2, change(1, 100, 0, "insert"), change(2, 101, 0, "insert"), change(1, 102, 0, "delete"), change(2, 103, 0, "delete"))
	var ours []*kgo.Record
	for _, r := range readCommitted(t, c, "orders", 5) {
		if string(r.Key) != "f" {
			ours = append(ours, r)
		}
	}
	// Compaction also removed key 1's insert and delete, superseded by its
	// tombstone; nothing of the replay came back.
	want := "0/2:insert@101 0/1:null@102 0/2:delete@103 0/2:null@103"
	if got := describe(ours); got != want {
		t.Fatalf("records %s; want %s", got, want)
	}
}
