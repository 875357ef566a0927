package crash

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The shared-topic crash test: two instances of rpconnect-doris, each with
// its own transactional_id and tables (ks.t1; ks.t2 and ks.t3), write with
// exactly_once into one single-partition topic while multi-table
// transactions run over all three tables. Both are SIGKILLed at random
// points (one, the other, or both at once) and restarted. Each instance
// must find its own tail among the other's records: afterwards a
// read_committed consumer holds every change of each exactly once.
const (
	ksDB    = "ks"
	ksTopic = "doris.ks.shared"
)

// ksInstance is one of the two pipelines.
type ksInstance struct {
	name     string
	include  string
	tables   []string
	cacheDir string
	start    func() *run
	cur      *run
}

func TestCrashKafkaSharedTopic(t *testing.T) {
	sh := kafkaCrashShapeFor()
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, sd^0x73686172))
	t.Logf("kafka-shared: seed %d (CRASH_SEED=%d replays it), %d kills", sd, sd, sh.kills)
	srv := harness.StartSim(t, dorissim.Config{})
	var loads []*harness.Workload
	for i := 1; i <= 3; i++ {
		tbl := fmt.Sprintf("t%d", i)
		harness.CreateTable(t, srv, ksDB, tbl, harness.TableOpts{Buckets: 2})
		wl := harness.NewWorkload(srv, ksDB, tbl, sd+uint64(i))
		if err := wl.Insert(ctxFor(t, time.Minute), sh.rows); err != nil {
			t.Fatal(err)
		}
		loads = append(loads, wl)
	}
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, ksTopic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	cons := consumeTopics(t, kc.ListenAddrs(), `^doris\.`+ksDB+`\..*`)

	insts := []*ksInstance{
		{name: "a", include: `ks\.t1`, tables: []string{"t1"}},
		{name: "b", include: `ks\.t[23]`, tables: []string{"t2", "t3"}},
	}
	for _, in := range insts {
		dir := filepath.Join(t.TempDir(), in.name)
		in.cacheDir = filepath.Join(dir, "cp")
		in.start = runLauncher(t, dir, in.cacheDir, sharedConfig(srv, kc.ListenAddrs(), in))
		in.cur = in.start()
	}
	starts := map[string]string{}
	for _, in := range insts {
		s := waitStreaming(t, in.cur, filepath.Join(in.cacheDir, "ks_"+in.name), func(st *checkpoint.State) bool {
			for _, tbl := range in.tables {
				if tb := st.Tables[ksDB+"."+tbl]; tb == nil || tb.Phase != checkpoint.PhaseBinlog {
					return false
				}
			}
			return true
		})
		for _, tbl := range in.tables {
			starts[tbl] = s
		}
		waitPast(t, srv, s)
	}
	w, err := newWriter(srv, loads, sd^0x0b5e55ed, sh.pause)
	if err != nil {
		t.Fatal(err)
	}
	w.start(sh.maxSteps)
	t.Cleanup(func() { _, _ = w.stop() })

	for k := range sh.kills {
		time.Sleep(time.Duration(300+rng.IntN(3000)) * time.Millisecond)
		// One instance, the other, or both: a kill mid-transaction leaves
		// a transaction open in the partition the other shares.
		victims := insts[k%2 : k%2+1]
		if k%3 == 2 {
			victims = insts
		}
		for _, in := range victims {
			in.cur.kill(t)
		}
		var names []string
		for _, in := range victims {
			names = append(names, in.name)
			in.cur = in.start()
		}
		t.Logf("killed and restarted %s (%d records read so far)", strings.Join(names, " and "), len(cons.records()))
	}
	time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
	steps, err := w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}

	time.Sleep(1100 * time.Millisecond) // the last change's second is over
	end := harness.Now(t, srv)
	want := map[tableChange]bool{}
	for _, wl := range loads {
		for _, c := range tableChanges(t, srv, ksDB, wl.Table(), starts[wl.Table()], end) {
			want[tableChange{wl.Table(), c}] = true
		}
	}
	got := cons.waitChanges(t, 2*time.Minute, want, insts[0].cur)
	for _, in := range insts {
		if code := in.cur.terminate(t, 60*time.Second); code != 0 {
			t.Errorf("instance %s exited with %d after SIGTERM", in.name, code)
		}
	}
	got = cons.settle(t, 3*time.Second, 15*time.Second)

	fig := countKafkaChanges(want, got)
	line := fmt.Sprintf("kafka-shared: kills=%d changes=%d records=%d duplicates=%d lost=%d", sh.kills, len(want), fig.records, fig.dups, fig.lost)
	t.Logf("%s (workload steps %d, multi-table transactions %d)", line, steps, len(w.transactions()))
	fmt.Println(line)
	if fig.lost != 0 || fig.extra != 0 || fig.dups != 0 {
		t.Errorf("%d changes lost, %d written twice and %d records of changes the source never had", fig.lost, fig.dups, fig.extra)
	}
	for _, p := range fig.disorder {
		t.Error(p)
	}
	for _, r := range got {
		if r.Partition != 0 || r.Topic != ksTopic {
			t.Fatalf("record in %s/%d; want everything in %s/0", r.Topic, r.Partition, ksTopic)
		}
	}
}

// sharedConfig is one instance's pipeline: its tables into the shared
// topic, keyed by table and key columns (keys of different tables must not
// meet), exactly once under its own transactional_id.
func sharedConfig(srv *dorissim.Server, brokers []string, in *ksInstance) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\nshutdown_timeout: 30s\n")
	b.WriteString("input:\n")
	harness.Indent(&b, harness.SelectYAML(srv, `include: ['`+in.include+`']`, "scan_mode: initial", "batch_size: 20",
		fmt.Sprintf("checkpoint_limit: %d", kcCheckpointLimit), "checkpoint_cache_key: ks_"+in.name, "request_tablet_size: 1", "snapshot_query_rows: 0"))
	b.WriteString("pipeline:\n  threads: 1\n")
	fmt.Fprintf(&b, `output:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: %s
    key: '${! @table }:${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
    metadata:
      include_patterns: [ '^(operation|tso|lsn|database_schema|table)$' ]
    max_in_flight: 1
    exactly_once: true
    transactional_id: kafka-shared-%s
`, strings.Join(brokers, ", "), ksTopic, in.name)
	b.WriteString(harness.FileCache(in.cacheDir))
	return b.String()
}
