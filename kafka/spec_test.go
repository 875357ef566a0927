package kafka

import (
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func lintOutput(t *testing.T, extra string) error {
	t.Helper()
	b := service.NewStreamBuilder()
	y := "kafka_franz:\n  seed_brokers: [ 127.0.0.1:9092 ]\n  topic: t\n"
	if extra != "" {
		y += "  " + strings.ReplaceAll(strings.TrimSpace(extra), "\n", "\n  ") + "\n"
	}
	return b.AddOutputYAML(y)
}

func TestLintRefusals(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"unsupported rack_id", "rack_id: a", "rack_id is a field of Redpanda Connect's kafka_franz that this kafka_franz does not support"},
		{"unsupported metadata_max_age", "metadata_max_age: 1m", "metadata_max_age is a field of Redpanda Connect's kafka_franz"},
		{"exactly once without id", "exactly_once: true\nmax_in_flight: 1", "exactly_once needs transactional_id"},
		{"exactly once default in flight", "exactly_once: true\ntransactional_id: x", "exactly_once needs max_in_flight: 1; got 256"},
		{"exactly once in flight 4", "exactly_once: true\ntransactional_id: x\nmax_in_flight: 4", "exactly_once needs max_in_flight: 1; got 4"},
		{"exactly once not idempotent", "exactly_once: true\ntransactional_id: x\nmax_in_flight: 1\nidempotent_write: false", "exactly_once needs idempotent_write: true"},
		{"exactly once round robin", "exactly_once: true\ntransactional_id: x\nmax_in_flight: 1\nkey: k\npartitioner: round_robin", "exactly_once needs partitioner murmur2_hash or manual"},
		{"exactly once without key", "exactly_once: true\ntransactional_id: x\nmax_in_flight: 1", "exactly_once needs key (or partitioner: manual)"},
		{"id without exactly once", "transactional_id: x", "transactional_id is used only with exactly_once"},
		{"manual without partition", "partitioner: manual", "partitioner manual needs partition"},
		{"partition without manual", "partition: '1'", "partition is used only with partitioner: manual"},
		{"bad partitioner", "partitioner: sticky", `partitioner must be one of murmur2_hash, round_robin, least_backup, manual; got "sticky"`},
		{"bad compression", "compression: brotli", `compression must be one of none, gzip, snappy, lz4, zstd; got "brotli"`},
		{"bad sasl", "sasl:\n  - mechanism: OAUTHBEARER\n    username: u", `sasl.mechanism must be one of none, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; got "OAUTHBEARER"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := lintOutput(t, c.yaml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("lint error %v; want one containing %q", err, c.want)
			}
		})
	}
}

func TestLintAccepts(t *testing.T) {
	for _, y := range []string{
		"",
		"exactly_once: true\ntransactional_id: x\nmax_in_flight: 1\nkey: '${! this.id }'",
		"exactly_once: true\ntransactional_id: x\nmax_in_flight: 1\npartitioner: manual\npartition: '0'",
		"partitioner: manual\npartition: '${! 0 }'",
		"key: '${! this.id }'\ncompression: zstd\nmax_message_bytes: 2MiB\nmetadata:\n  include_prefixes: [ '' ]",
		"sasl:\n  - mechanism: SCRAM-SHA-512\n    username: u\n    password: p",
	} {
		if err := lintOutput(t, y); err != nil {
			t.Errorf("config %q: %v", y, err)
		}
	}
}

// parse builds a config without the lint rules, as a run with linting
// disabled does.
func parse(t *testing.T, y string) (*config, error) {
	t.Helper()
	pc, err := Spec().ParseYAML("seed_brokers: [ 'a:9092, b:9092' ]\ntopic: t\n"+y, nil)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return parseConfig(pc)
}

func TestParseConfigChecks(t *testing.T) {
	c, err := parse(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.seeds) != 2 || c.partitioner != partMurmur2 || !c.idempotent || c.maxMsgBytes != 1<<20 {
		t.Fatalf("defaults: %+v", c)
	}
	for y, want := range map[string]string{
		"rack_id: a":         "rack_id is a field of Redpanda Connect's kafka_franz",
		"exactly_once: true": "exactly_once needs transactional_id",
		"exactly_once: true\ntransactional_id: x\nkey: k":           "exactly_once needs max_in_flight: 1; got 256",
		"exactly_once: true\ntransactional_id: x\nmax_in_flight: 1": "exactly_once needs key (or partitioner: manual)",
		"max_message_bytes: lots":                                   "max_message_bytes must be a size",
		"sasl:\n  - mechanism: PLAIN":                               "mechanism PLAIN needs a username",
	} {
		if _, err := parse(t, y); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %q: error %v; want %q", y, err, want)
		}
	}
}
