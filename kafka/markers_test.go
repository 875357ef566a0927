package kafka

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/input/txmarkers"
)

// transaction is doris_binlog's shape of one transaction at tso with
// markers: begin, a change of each id (LSNs from 0), commit.
func transaction(tso int64, ids ...int) []*service.Message {
	out := []*service.Message{txmarkers.NewBegin(tso, "")}
	for i, id := range ids {
		out = append(out, change(id, tso, int64(i), "insert"))
	}
	return append(out, txmarkers.NewCommit(tso, "", []txmarkers.TableCount{{Table: "shop.orders", EventCount: int64(len(ids))}}))
}

// sequence is the records as operation@tso, changes with their body.
func sequence(recs []*kgo.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		op := header(r, "operation")
		if txmarkers.KindOfOperation(op) == txmarkers.None {
			out[i] = fmt.Sprintf("%s@%s", r.Value, header(r, "tso"))
		} else {
			out[i] = fmt.Sprintf("%s@%s", op, header(r, "tso"))
		}
	}
	return out
}

// Without transaction_markers, kafka_franz drops doris_binlog's markers,
// with exactly_once or without: only the changes are written, and a batch
// of markers alone writes nothing.
func TestMarkersAreDroppedUnlessConfigured(t *testing.T) {
	for name, y := range map[string]string{"plain": "topic: orders\nmetadata:\n  include_patterns: [ '^(tso|operation)$' ]\n", "exactly_once": eoYAML} {
		t.Run(name, func(t *testing.T) {
			c := startCluster(t, kfake.SeedTopics(1, "orders"))
			o := newOutput(t, c, y)
			write(t, o, transaction(100, 1, 2)...)
			write(t, o, txmarkers.NewBegin(101, ""), txmarkers.NewCommit(101, "", nil))
			write(t, o, change(3, 102, 0, "insert"))
			got := sequence(readCommitted(t, c, "orders", 3))
			want := []string{`{"id":1}@100`, `{"id":2}@100`, `{"id":3}@102`}
			if !slices.Equal(got, want) {
				t.Fatalf("topic holds %v, want the changes alone %v", got, want)
			}
		})
	}
}

// With transaction_markers and exactly_once, markers are written, and the
// tail check places them by TSO: a transaction doris_binlog sends again
// from its begin after a restart inside it, or after its commit was
// written but not acknowledged, leaves one begin, its changes once and one
// commit.
func TestExactlyOnceWritesEachMarkerOnce(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	y := eoYAML + "transaction_markers: true\n"
	o := newOutput(t, c, y)
	first := transaction(100, 1, 2, 3)
	write(t, o, first[:3]...) // begin and two changes; then the process dies
	_ = o.Close(context.Background())

	o2 := newOutput(t, c, y)
	write(t, o2, first...) // the input re-reads the transaction from its begin
	write(t, o2, transaction(101, 4)...)
	_ = o2.Close(context.Background())

	o3 := newOutput(t, c, y)
	write(t, o3, transaction(101, 4)...) // its commit was written, not acked
	write(t, o3, transaction(102, 5)...)

	got := sequence(readCommitted(t, c, "orders", 11))
	want := []string{"begin@100", `{"id":1}@100`, `{"id":2}@100`, `{"id":3}@100`, "commit@100",
		"begin@101", `{"id":4}@101`, "commit@101", "begin@102", `{"id":5}@102`, "commit@102"}
	if !slices.Equal(got, want) {
		t.Fatalf("topic holds\n%v\nwant\n%v", got, want)
	}
}

// A marker can be the partition's tail that a later unpositioned record
// (a snapshot row) carries in doris_tail: the tail read back from it still
// drops what the input sends again.
func TestExactlyOnceTailAfterAMarkerUnderASnapshotRow(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "orders"))
	y := eoYAML + "transaction_markers: true\n"
	o := newOutput(t, c, y)
	write(t, o, transaction(100, 1)...)
	write(t, o, snapshotRow(9))
	_ = o.Close(context.Background())

	o2 := newOutput(t, c, y)
	write(t, o2, transaction(100, 1)...)
	write(t, o2, transaction(101, 2)...)
	got := sequence(readCommitted(t, c, "orders", 7))
	want := []string{"begin@100", `{"id":1}@100`, "commit@100", `{"id":9}@`, "begin@101", `{"id":2}@101`, "commit@101"}
	if !slices.Equal(got, want) {
		t.Fatalf("topic holds\n%v\nwant\n%v", got, want)
	}
}
