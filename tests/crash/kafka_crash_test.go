package crash

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// The Kafka crash suite: rpconnect-doris with doris_binlog -> kafka_franz is
// SIGKILLed at random points while a workload writes single- and
// multi-table transactions into kc.t1..t3. The broker is kfake in this
// process, so it outlives every kill. Afterwards a read_committed consumer
// must hold every binlog change: exactly once with exactly_once, and with
// at most checkpoint_limit duplicates per kill without it. With
// delete_tombstones the topics are compacted ones, and every delete must
// be followed by exactly one tombstone.
const (
	kcDB           = "kc"
	kcTables       = 3
	kcCheckpointCp = "kc_cp"
	// kcCheckpointLimit bounds the duplicates per kill without exactly_once
	// (decisions.md, "Duplicates after SIGKILL").
	kcCheckpointLimit = 100
)

type kafkaCrashShape struct {
	rows, kills, maxSteps int
	pause                 time.Duration
}

func kafkaCrashShapeFor() kafkaCrashShape {
	if os.Getenv("CRASH_LONG") != "" {
		return kafkaCrashShape{rows: 300, kills: 12, maxSteps: 5000, pause: 15 * time.Millisecond}
	}
	return kafkaCrashShape{rows: 50, kills: 3, maxSteps: 600, pause: 20 * time.Millisecond}
}

func TestCrashKafkaExactlyOnce(t *testing.T) { kafkaCrash(t, kafkaCrashOpts{exactlyOnce: true}) }

func TestCrashKafkaAtLeastOnce(t *testing.T) { kafkaCrash(t, kafkaCrashOpts{}) }

func TestCrashKafkaTombstones(t *testing.T) {
	kafkaCrash(t, kafkaCrashOpts{exactlyOnce: true, tombstones: true})
}

// kafkaCrashOpts pick the output's mode.
type kafkaCrashOpts struct {
	exactlyOnce bool
	tombstones  bool // delete_tombstones, into compacted topics
	markers     bool // include_transaction_markers, written (markers_kafka_crash_test.go)
}

// kafkaCrash is one crash run.
func kafkaCrash(t *testing.T, o kafkaCrashOpts) {
	exactlyOnce := o.exactlyOnce
	sh := kafkaCrashShapeFor()
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, sd^0x6b61666b))
	t.Logf("kafka-crash: seed %d (CRASH_SEED=%d replays it), exactly_once %v, %d kills", sd, sd, exactlyOnce, sh.kills)
	srv := harness.StartSim(t, dorissim.Config{})
	var loads []*harness.Workload
	for i := 1; i <= kcTables; i++ {
		tbl := fmt.Sprintf("t%d", i)
		harness.CreateTable(t, srv, kcDB, tbl, harness.TableOpts{Buckets: 2})
		wl := harness.NewWorkload(srv, kcDB, tbl, sd+uint64(i))
		if err := wl.Insert(ctxFor(t, time.Minute), sh.rows); err != nil {
			t.Fatal(err)
		}
		loads = append(loads, wl)
	}
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	if o.tombstones {
		for i := 1; i <= kcTables; i++ {
			if err := kc.CreateTopic(fmt.Sprintf("doris.%s.t%d", kcDB, i), 3, map[string]string{"cleanup.policy": "compact"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	cons := consumeTopics(t, kc.ListenAddrs(), `^doris\.`+kcDB+`\..*`)

	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cp")
	conf := kafkaCrashConfig(srv, kc.ListenAddrs(), cacheDir, o)
	start := runLauncher(t, dir, cacheDir, conf)

	// The writer starts once the binlog's stream start has passed, so that
	// every change it makes is a binlog change, which carries a position.
	first := start()
	streamStart := waitKafkaStreaming(t, first, cacheDir)
	waitPast(t, srv, streamStart)
	w, err := newWriter(srv, loads, sd^0x0b5e55ed, sh.pause)
	if err != nil {
		t.Fatal(err)
	}
	w.start(sh.maxSteps)
	t.Cleanup(func() { _, _ = w.stop() })

	for k := range sh.kills {
		r := first
		if k > 0 {
			r = start()
		}
		time.Sleep(time.Duration(300+rng.IntN(3000)) * time.Millisecond)
		// Every other kill lands just after a batch became visible, between
		// its write (or commit) and the checkpoint of its ack: the window
		// where a replay follows.
		after := k%2 == 1 && cons.waitNew(r, 10*time.Second)
		r.kill(t)
		t.Logf("killed run %d (%d records read so far, just after a write: %v)", r.no, len(cons.records()), after)
	}
	final := start()
	time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
	steps, err := w.stop()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}

	time.Sleep(1100 * time.Millisecond) // the last change's second is over
	end := harness.Now(t, srv)
	want := map[tableChange]bool{}
	for _, wl := range loads {
		for _, c := range tableChanges(t, srv, kcDB, wl.Table(), streamStart, end) {
			want[tableChange{wl.Table(), c}] = true
		}
	}
	got := cons.waitChanges(t, 2*time.Minute, want, final)
	if code := final.terminate(t, 60*time.Second); code != 0 {
		t.Errorf("the final run exited with %d after SIGTERM", code)
	}
	// A change written again by the final run's shutdown would arrive
	// within a few fetches.
	got = cons.settle(t, 3*time.Second, 15*time.Second)

	fig := countKafkaChanges(want, got)
	line := fmt.Sprintf("kafka-crash: kills=%d changes=%d records=%d duplicates=%d lost=%d exactly_once=%v", sh.kills, len(want), fig.records, fig.dups, fig.lost, exactlyOnce)
	t.Logf("%s (workload steps %d, multi-table transactions %d)", line, steps, len(w.transactions()))
	fmt.Println(line)
	if fig.lost != 0 || fig.extra != 0 {
		t.Errorf("%d changes lost and %d records of changes the source never had", fig.lost, fig.extra)
	}
	for _, p := range fig.disorder {
		t.Error(p)
	}
	if exactlyOnce && fig.dups != 0 {
		t.Errorf("exactly_once: a read_committed consumer saw %d changes more than once", fig.dups)
	}
	if bound := sh.kills * kcCheckpointLimit; fig.dups > bound {
		t.Errorf("%d duplicates after %d kills; at most checkpoint_limit (%d) per kill, %d in all", fig.dups, sh.kills, kcCheckpointLimit, bound)
	}
	if o.tombstones {
		checkTombstones(t, srv, kc, loads, got)
	}
	if o.markers {
		checkKafkaMarkers(t, want, got)
	}
}

// kafkaCrashConfig is config/database_to_kafka.yaml's pipeline on kc.*,
// with the checkpoint in a file cache.
func kafkaCrashConfig(srv *dorissim.Server, brokers []string, cacheDir string, o kafkaCrashOpts) string {
	var b strings.Builder
	b.WriteString("http:\n  enabled: false\nlogger:\n  level: INFO\n  format: logfmt\nshutdown_timeout: 30s\n")
	b.WriteString("input:\n")
	fields := []string{"scan_mode: initial", "batch_size: 20",
		fmt.Sprintf("checkpoint_limit: %d", kcCheckpointLimit), "checkpoint_cache_key: " + kcCheckpointCp, "request_tablet_size: 1", "snapshot_query_rows: 0"}
	if o.markers {
		fields = append(fields, "include_transaction_markers: true")
	}
	in := harness.SelectYAML(srv, `include: ['`+kcDB+`\..*']`, fields...)
	harness.Indent(&b, in)
	// exactly_once's tail check needs the input's order: one thread.
	b.WriteString("pipeline:\n  threads: 1\n")
	if o.markers {
		b.WriteString(markersRouteYAML)
	}
	fmt.Fprintf(&b, `output:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: 'doris.${! @database_schema }.${! @table }'
    key: '${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
    metadata:
      include_patterns: [ '^(operation|tso|lsn|database_schema|table)$' ]
    max_in_flight: 1
`, strings.Join(brokers, ", "))
	if o.exactlyOnce {
		b.WriteString("    exactly_once: true\n    transactional_id: kafka-crash\n")
	}
	if o.tombstones {
		b.WriteString("    delete_tombstones: true\n")
	}
	if o.markers {
		b.WriteString(markersOutputYAML)
	}
	b.WriteString(harness.FileCache(cacheDir))
	return b.String()
}

// waitKafkaStreaming waits for every kc table to be in the binlog phase in
// the stored checkpoint and returns the start of the current window.
func waitKafkaStreaming(t *testing.T, r *run, cacheDir string) string {
	t.Helper()
	return waitStreaming(t, r, filepath.Join(cacheDir, kcCheckpointCp), allBinlog)
}

func allBinlog(st *checkpoint.State) bool {
	for i := 1; i <= kcTables; i++ {
		if tb := st.Tables[fmt.Sprintf("%s.t%d", kcDB, i)]; tb == nil || tb.Phase != checkpoint.PhaseBinlog {
			return false
		}
	}
	return true
}
