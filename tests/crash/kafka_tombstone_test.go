package crash

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// checkTombstones checks delete_tombstones after the kills, over recs (every
// committed record, each partition in offset order): each delete is
// followed in its partition by exactly one tombstone of its key and
// position, and none stands alone. Then it compacts the topics and reads
// them as a compacted-topic reader does, from the start: every key the
// source deleted ends in exactly one tombstone, every live key in a value.
func checkTombstones(t *testing.T, srv *dorissim.Server, kc *kfake.Cluster, loads []*harness.Workload, recs []*kgo.Record) {
	t.Helper()
	type part struct {
		topic     string
		partition int32
	}
	parts := map[part][]*kgo.Record{}
	for _, r := range recs {
		p := part{r.Topic, r.Partition}
		parts[p] = append(parts[p], r)
	}
	posOf := func(r *kgo.Record) string {
		h := headers(r)
		return fmt.Sprintf("%s %s@%s/%s/%s", r.Key, h["table"], h["tso"], h["lsn"], h["operation"])
	}
	tombs := map[string]int{} // per delete
	deletes := 0
	for p, rs := range parts {
		for i, r := range rs {
			if r.Value == nil {
				tombs[r.Topic+" "+posOf(r)]++
				if i == 0 || rs[i-1].Value == nil || posOf(rs[i-1]) != posOf(r) || headers(r)["operation"] != "delete" {
					t.Errorf("%s/%d@%d: a tombstone (%s) not right after its delete", p.topic, p.partition, r.Offset, posOf(r))
				}
				continue
			}
			if headers(r)["operation"] != "delete" {
				continue
			}
			deletes++
			if i+1 == len(rs) || rs[i+1].Value != nil || posOf(rs[i+1]) != posOf(r) || string(rs[i+1].Key) != string(r.Key) {
				t.Errorf("%s/%d@%d: the delete %s is not followed by its tombstone", p.topic, p.partition, r.Offset, posOf(r))
			}
		}
	}
	for k, n := range tombs {
		if n != 1 {
			t.Errorf("%d tombstones for the delete %s; want one", n, k)
		}
	}
	if deletes == 0 {
		t.Fatal("the workload deleted nothing: the tombstones were not tested")
	}

	kc.Compact()
	compacted := consumeTopics(t, kc.ListenAddrs(), `^doris\.`+kcDB+`\..*`).settle(t, 3*time.Second, 60*time.Second)
	ends := map[string][]*kgo.Record{} // per topic and key, in offset order
	for _, r := range compacted {
		k := r.Topic + "/" + string(r.Key)
		ends[k] = append(ends[k], r)
	}
	deleted := 0
	for _, wl := range loads {
		live := map[string]bool{}
		res, err := srv.Query(ctxFor(t, time.Minute), fmt.Sprintf("SELECT `id` FROM `%s`.`%s`", kcDB, wl.Table()))
		if err != nil {
			t.Fatalf("reading the keys of %s.%s: %v", kcDB, wl.Table(), err)
		}
		for _, row := range res {
			live[fmt.Sprint(toInt(row[0]))] = true
		}
		topic := fmt.Sprintf("doris.%s.%s", kcDB, wl.Table())
		for id := int64(1); id < wl.NextID(); id++ {
			key := fmt.Sprint(id)
			rs := ends[topic+"/"+key]
			trailing := 0
			for i := len(rs) - 1; i >= 0 && rs[i].Value == nil; i-- {
				trailing++
			}
			switch {
			case len(rs) == 0:
				t.Errorf("%s: key %s has no record after compaction", topic, key)
			case live[key] && trailing != 0:
				t.Errorf("%s: key %s is live in the source but ends in a tombstone", topic, key)
			case !live[key] && trailing != 1:
				t.Errorf("%s: key %s was deleted but ends in %d tombstones (records %s); want one", topic, key, trailing, describeRecords(rs))
			}
			if !live[key] {
				deleted++
			}
		}
	}
	t.Logf("kafka-crash tombstones: deletes=%d tombstones=%d deleted keys=%d, compacted to %d of %d records", deletes, len(tombs), deleted, len(compacted), len(recs))
}

func headers(r *kgo.Record) map[string]string {
	h := map[string]string{}
	for _, x := range r.Headers {
		h[x.Key] = string(x.Value)
	}
	return h
}

func describeRecords(rs []*kgo.Record) string {
	var out []string
	for _, r := range rs {
		what := headers(r)["operation"]
		if r.Value == nil {
			what = "null"
		}
		out = append(out, fmt.Sprintf("%d:%s", r.Offset, what))
	}
	return strings.Join(out, " ")
}
