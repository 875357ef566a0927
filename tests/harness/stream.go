package harness

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"

	_ "github.com/rpconnect-doris/rpconnect-doris/input"
)

// Running is a stream built by RunStream.
type Running struct {
	Stream *service.Stream
	done   chan error
}

// StreamConfig is what RunStream builds.
type StreamConfig struct {
	Input     string          // YAML of the input, e.g. "doris_binlog:\n  fenodes: ..."
	Resources string          // YAML of extra resources (cache_resources: ...)
	Strict    bool            // error_handling strict: processor errors become nacks
	LogLevel  string          // default NONE
	Logs      *LogCapture     // when set, receives every log record (LogLevel is ignored)
	Metrics   *MetricsCapture // when set, receives the stream's metrics
	Processor string          // optional processor YAML
}

// RunStream builds and starts a stream that delivers into col.
func RunStream(t testing.TB, cfg StreamConfig, col *Collector) *Running {
	t.Helper()
	b := service.NewStreamBuilder()
	level := cfg.LogLevel
	if level == "" {
		level = "NONE"
	}
	if env := os.Getenv("HARNESS_LOG_LEVEL"); env != "" {
		level = env // for debugging a failing test: HARNESS_LOG_LEVEL=DEBUG
	}
	if cfg.Logs != nil {
		b.SetLogger(cfg.Logs.Logger())
	} else if err := b.SetLoggerYAML("level: " + level); err != nil {
		t.Fatal(err)
	}
	if cfg.Metrics != nil {
		if err := b.SetMetricsYAML(cfg.Metrics.metricsYAML(t)); err != nil {
			t.Fatalf("metrics: %v", err)
		}
	}
	if cfg.Resources != "" {
		if err := b.AddResourcesYAML(cfg.Resources); err != nil {
			t.Fatalf("resources: %v", err)
		}
	}
	if err := b.AddInputYAML(cfg.Input); err != nil {
		t.Fatalf("input: %v", err)
	}
	if cfg.Processor != "" {
		if err := b.AddProcessorYAML(cfg.Processor); err != nil {
			t.Fatalf("processor: %v", err)
		}
	}
	if cfg.Strict {
		b.SetStrict(true)
	}
	if err := b.AddBatchConsumerFunc(col.Consume); err != nil {
		t.Fatal(err)
	}
	s, err := b.Build()
	if err != nil {
		t.Fatalf("building stream: %v", err)
	}
	r := &Running{Stream: s, done: make(chan error, 1)}
	go func() { r.done <- s.Run(context.Background()) }()
	t.Cleanup(func() { _ = r.Stop(10 * time.Second) })
	return r
}

// Stop stops the stream gracefully within d.
func (r *Running) Stop(d time.Duration) error {
	select {
	case err := <-r.done:
		r.done <- err
		return err
	default:
	}
	if err := r.Stream.StopWithin(d); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	err := <-r.done
	r.done <- err
	return err
}

// Wait waits (bounded) for the stream to end by itself, e.g. after a snapshot.
func (r *Running) Wait(t testing.TB, timeout time.Duration) error {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err
		return err
	case <-time.After(timeout):
		t.Fatalf("stream did not end within %s", timeout)
		return nil
	}
}

// WaitCheckpoint waits until the input has stored a checkpoint under key in
// the cache "cp", which for latest mode means its stream start is fixed.
func WaitCheckpoint(t testing.TB, r *Running, key string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var found bool
		err := r.Stream.Resources().AccessCache(context.Background(), "cp", func(c service.Cache) {
			_, err := c.Get(context.Background(), key)
			found = err == nil
		})
		if err != nil && !errors.Is(err, service.ErrKeyNotFound) {
			t.Fatalf("reading cache: %v", err)
		}
		if found {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no checkpoint under %s after 30s", key)
}

// LintStream builds (without running) a stream with input and a drop
// output, returning the lint or build error.
func LintStream(input string) error {
	b := service.NewStreamBuilder()
	if err := b.AddInputYAML(input); err != nil {
		return err
	}
	if err := b.AddOutputYAML("drop: {}"); err != nil {
		return err
	}
	_, err := b.Build()
	return err
}
