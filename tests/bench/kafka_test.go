package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaResult is row j: the mixed snapshot into kafka_franz with
// exactly_once off and on, and into stdout, in the same run.
type kafkaResult struct {
	stdout, atLeastOnce, exactlyOnce procResult
}

// measureKafka runs the three paths one after the other. The broker is
// kfake in this process, a new one per path, so its CPU is not the
// client's and no path reads another's records.
func measureKafka(t *testing.T, ctx context.Context, s *sim) kafkaResult {
	t.Helper()
	var k kafkaResult
	s.row(t, "doris_binlog snapshot into stdout", func() error {
		k.stdout = runRPConnect(t, ctx, stdoutConfig(s, "mixed"), nil, nil)
		return nil
	})
	for _, p := range []struct {
		name string
		eo   bool
		res  *procResult
	}{{"kafka_franz", false, &k.atLeastOnce}, {"kafka_franz exactly_once", true, &k.exactlyOnce}} {
		s.row(t, "doris_binlog snapshot into "+p.name, func() error {
			kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
			if err != nil {
				return fmt.Errorf("starting kfake: %w", err)
			}
			defer kc.Close()
			cfg := kafkaConfig(s, "mixed", kc.ListenAddrs(), p.eo)
			cfg = profiled(t, cfg, fmt.Sprintf("kafka-eo-%v", p.eo))
			*p.res = runRPConnect(t, ctx, cfg, nil, nil)
			return countCommitted(ctx, kc.ListenAddrs(), snapshotRows)
		})
	}
	return k
}

func stdoutConfig(s *sim, table string) string {
	return inputConfig(s, table, "scan_mode: snapshot", "max_parallel_snapshot_splits: 2") +
		"output:\n  stdout:\n    codec: lines\nhttp:\n  enabled: false\n" + quietTail
}

// kafkaConfig is the output of config/database_to_kafka.yaml.
func kafkaConfig(s *sim, table string, brokers []string, exactlyOnce bool) string {
	out := fmt.Sprintf(`output:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: 'doris.${! @database_schema }.${! @table }'
    key: '${! @key_columns.map_each(c -> this.get(c).string()).join(",") }'
    metadata:
      include_patterns: [ '^(operation|tso|lsn|database_schema|table|commit_ts_ms)$' ]
    compression: lz4
    max_in_flight: 1
    batching:
      count: 500
      period: 100ms
`, strings.Join(brokers, ", "))
	if exactlyOnce {
		out += "    exactly_once: true\n    transactional_id: bench\n"
	}
	return inputConfig(s, table, "scan_mode: snapshot", "max_parallel_snapshot_splits: 2") +
		"pipeline:\n  threads: 1\n" + out + "http:\n  enabled: false\n" + quietTail
}

// countCommitted checks (bounded) that a read_committed consumer sees
// exactly want records in the doris.* topics.
func countCommitted(ctx context.Context, brokers []string, want int64) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeRegex(), kgo.ConsumeTopics(`^doris\..*`),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	var n int64
	for n < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("read %d of %d records from kafka: %w", n, want, ctx.Err())
		}
		n += int64(fs.NumRecords())
	}
	if n != want {
		return fmt.Errorf("read %d records from kafka, want %d", n, want)
	}
	return nil
}

func (k kafkaResult) rows() []row {
	rate := func(p procResult) float64 { return perSec(snapshotRows, p.wall.Seconds()) }
	cpuPerM := func(p procResult) float64 { return p.cpu.Seconds() / (float64(snapshotRows) / 1e6) }
	line := func(p procResult) string {
		return fmt.Sprintf("%s, client CPU %.2f s per 1M rows (%.2f s)", fmtRate(rate(p), "rows/s"), cpuPerM(p), p.wall.Seconds())
	}
	return []row{
		info(fmt.Sprintf("j. Doris -> stdout, %s mixed rows", count(snapshotRows)), line(k.stdout)),
		info("j. Doris -> Kafka (kfake), exactly_once off", line(k.atLeastOnce)),
		info("j. Doris -> Kafka (kfake), exactly_once on", line(k.exactlyOnce)),
		info("j. Kafka / stdout rows/s: exactly_once off / on", fmt.Sprintf("%.2f / %.2f", ratio(rate(k.atLeastOnce), rate(k.stdout)), ratio(rate(k.exactlyOnce), rate(k.stdout)))),
	}
}

// TestKafkaBench runs only row j on a simulator of its own (`make bench`
// runs it inside TestBench; this name does not match -run TestBench).
func TestKafkaBench(t *testing.T) {
	ctx, s := benchSim(t, "the Kafka benchmark rows", 30*time.Minute)
	seedMixed(t, ctx, s)
	k := measureKafka(t, ctx, s)
	fmt.Println()
	fmt.Print(renderTable(k.rows()))
}
