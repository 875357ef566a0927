package kafkae2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

func runBin(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, harness.Binary(t, "rpconnect-doris", "RPCONNECT_DORIS_BIN"), args...)
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const lintInput = "input:\n  generate:\n    mapping: root = {}\n    count: 1\n"

// TestBinaryLintsKafkaOutput lints the shipped config and broken ones with
// the binary: Redpanda Connect fields we lack and the exactly_once rules.
func TestBinaryLintsKafkaOutput(t *testing.T) {
	if out, err := runBin(t, nil, "lint", "-r", "resources/offsets_memory_cache.yaml", "config/database_to_kafka.yaml"); err != nil {
		t.Fatalf("lint config/database_to_kafka.yaml: %v\n%s", err, out)
	}
	base := "output:\n  kafka_franz:\n    seed_brokers: [ localhost:9092 ]\n    topic: t\n"
	for extra, want := range map[string]string{
		"    rack_id: r1\n": "rack_id is a field of Redpanda Connect's kafka_franz that this kafka_franz does not support",
		"    exactly_once: true\n    max_in_flight: 1\n":    "exactly_once needs transactional_id",
		"    exactly_once: true\n    transactional_id: x\n": "exactly_once needs max_in_flight: 1",
		"    partitioner: fnv\n":                            "partitioner must be one of murmur2_hash, round_robin, least_backup, manual",
	} {
		out, err := runBin(t, nil, "lint", writeConfig(t, lintInput+base+extra))
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("lint of %q: err %v, want %q in:\n%s", extra, err, want, out)
		}
	}
}

// TestBinaryRefusesThreadsWithExactlyOnce runs the binary with exactly_once
// and pipeline.threads other than 1 (the default is one per CPU): it must
// refuse to start, naming pipeline.threads.
func TestBinaryRefusesThreadsWithExactlyOnce(t *testing.T) {
	kc := startKafka(t)
	out := "output:\n  kafka_franz:\n    seed_brokers: [ " + kc.ListenAddrs()[0] + " ]\n    topic: t\n    key: k\n    max_in_flight: 1\n    exactly_once: true\n    transactional_id: x\n"
	for _, pipeline := range []string{"", "pipeline:\n  threads: 2\n"} {
		got, err := runBin(t, nil, "run", writeConfig(t, lintInput+pipeline+out))
		if err == nil || !strings.Contains(got, "needs pipeline.threads: 1") {
			t.Errorf("run with %q: err %v, want a refusal naming pipeline.threads:\n%s", pipeline, err, got)
		}
	}
	got, err := runBin(t, nil, "run", writeConfig(t, lintInput+"pipeline:\n  threads: 1\n"+out))
	if err != nil {
		t.Errorf("run with pipeline.threads 1: %v\n%s", err, got)
	}
}

// TestShippedKafkaConfigRuns runs config/database_to_kafka.yaml as shipped,
// pointed at a simulator and a broker by its environment variables: the
// snapshot and the changes of shop.orders land in doris.shop.orders, keyed
// by id.
func TestShippedKafkaConfigRuns(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE shop")
	harness.CreateTable(t, srv, "shop", "orders", harness.TableOpts{})
	harness.Exec(t, srv, "INSERT INTO shop.orders VALUES (1, 'a', 1, 1.00), (2, 'b', 2, 2.00)")
	time.Sleep(1100 * time.Millisecond)
	kc := startKafka(t)
	t.Setenv("DORIS_FENODES", srv.HTTPAddr())
	t.Setenv("KAFKA_BROKERS", kc.ListenAddrs()[0])
	root := harness.ModuleRoot()
	conf, err := os.ReadFile(filepath.Join(root, "config", "database_to_kafka.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := os.ReadFile(filepath.Join(root, "resources", "offsets_memory_cache.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b := service.NewStreamBuilder()
	if err := b.SetYAML(string(conf)); err != nil {
		t.Fatalf("config/database_to_kafka.yaml: %v", err)
	}
	if err := b.SetLoggerYAML("level: NONE"); err != nil {
		t.Fatal(err)
	}
	if err := b.AddResourcesYAML(string(res)); err != nil {
		t.Fatal(err)
	}
	s, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	t.Cleanup(func() { _ = s.StopWithin(10 * time.Second); <-done })

	c := consume(t, kc.ListenAddrs())
	c.waitFor(t, 30*time.Second, "the snapshot", func(recs []*kgo.Record) bool { return len(recs) >= 2 })
	harness.Exec(t, srv, "DELETE FROM shop.orders WHERE id = 1")
	recs := c.waitFor(t, 30*time.Second, "the delete", func(recs []*kgo.Record) bool { return len(recs) >= 3 })
	for _, r := range recs {
		ev := event(t, r)
		if r.Topic != "doris.shop.orders" || string(r.Key) != ev.Row["id"].(interface{ String() string }).String() {
			t.Errorf("record %s key %q body %s", r.Topic, r.Key, r.Value)
		}
	}
	last := event(t, recs[2])
	if last.Operation != "delete" || last.Phase != "binlog" || last.Row["name"] != "a" {
		t.Errorf("the delete record: %+v", last)
	}
}
