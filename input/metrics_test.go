package input

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/redpanda-data/benthos/v4/public/components/pure" // the "none" tracer a resource builder starts
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
)

// metricsCapture is a metrics exporter that keeps every counter's sum and
// every gauge's last value by name and label values, so that a test can
// read what the input reported. (tests/harness has one too, but it imports
// this package.)
type metricsCapture struct {
	mu       sync.Mutex
	counters map[string]*atomic.Int64
	gauges   map[string]*atomic.Int64
	floats   map[string]*atomic.Uint64 // gauges' float64 bits
}

var (
	metricsCaptures   sync.Map // id -> *metricsCapture
	metricsCaptureSeq atomic.Int64
)

const metricsCaptureName = "input_test_capture"

// capturedMetrics returns metrics whose values the returned capture reads.
func capturedMetrics(t testing.TB) (*metrics, *metricsCapture) {
	t.Helper()
	capt := &metricsCapture{counters: map[string]*atomic.Int64{}, gauges: map[string]*atomic.Int64{}}
	id := fmt.Sprintf("capture-%d", metricsCaptureSeq.Add(1))
	metricsCaptures.Store(id, capt)
	t.Cleanup(func() { metricsCaptures.Delete(id) })
	env := service.NewEnvironment()
	spec := service.NewConfigSpec().Field(service.NewStringField("id"))
	err := env.RegisterMetricsExporter(metricsCaptureName, spec, func(conf *service.ParsedConfig, _ *service.Logger) (service.MetricsExporter, error) {
		id, err := conf.FieldString("id")
		if err != nil {
			return nil, err
		}
		v, ok := metricsCaptures.Load(id)
		if !ok {
			return nil, fmt.Errorf("%s: no capture %q", metricsCaptureName, id)
		}
		return v.(*metricsCapture), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rb := env.NewResourceBuilder()
	if err := rb.SetMetricsYAML(metricsCaptureName + ":\n  id: " + id + "\n"); err != nil {
		t.Fatal(err)
	}
	res, stop, err := rb.Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	return newMetrics(res.Metrics()), capt
}

func metricKey(name string, labelValues []string) string {
	if len(labelValues) == 0 {
		return name
	}
	return name + "{" + strings.Join(labelValues, ",") + "}"
}

func (m *metricsCapture) value(set map[string]*atomic.Int64, key string) *atomic.Int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := set[key]
	if !ok {
		v = &atomic.Int64{}
		set[key] = v
	}
	return v
}

// counter is the counter name with exactly these label values.
func (m *metricsCapture) counter(name string, labelValues ...string) int64 {
	return m.value(m.counters, metricKey(name, labelValues)).Load()
}

// gauge is the last value of the gauge name with these label values, and
// whether it was ever set.
func (m *metricsCapture) gauge(name string, labelValues ...string) (int64, bool) {
	m.mu.Lock()
	v, ok := m.gauges[metricKey(name, labelValues)]
	m.mu.Unlock()
	if !ok {
		return 0, false
	}
	return v.Load(), true
}

// gaugeFloat is the last value of the gauge name as a float64, and whether
// it was ever set.
func (m *metricsCapture) gaugeFloat(name string, labelValues ...string) (float64, bool) {
	key := metricKey(name, labelValues)
	m.mu.Lock()
	_, ok := m.gauges[key]
	m.mu.Unlock()
	if !ok {
		return 0, false
	}
	return math.Float64frombits(m.float(key).Load()), true
}

func (m *metricsCapture) float(key string) *atomic.Uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.floats == nil {
		m.floats = map[string]*atomic.Uint64{}
	}
	v, ok := m.floats[key]
	if !ok {
		v = &atomic.Uint64{}
		m.floats[key] = v
	}
	return v
}

type capturedCounter struct{ v *atomic.Int64 }

func (c capturedCounter) Incr(n int64) { c.v.Add(n) }

// capturedGauge keeps the last value as an int64 (a float truncated, as
// Benthos's own int exporters would) and, in floats, its exact float64.
type capturedGauge struct {
	v *atomic.Int64
	f *atomic.Uint64 // math.Float64bits of the last value
}

func (g capturedGauge) Set(n int64) { g.v.Store(n); g.f.Store(math.Float64bits(float64(n))) }

func (g capturedGauge) SetFloat64(x float64) { g.v.Store(int64(x)); g.f.Store(math.Float64bits(x)) }

type ignoredTimer struct{}

func (ignoredTimer) Timing(int64) {}

func (m *metricsCapture) NewCounterCtor(name string, _ ...string) service.MetricsExporterCounterCtor {
	return func(labelValues ...string) service.MetricsExporterCounter {
		return capturedCounter{v: m.value(m.counters, metricKey(name, labelValues))}
	}
}

func (m *metricsCapture) NewGaugeCtor(name string, _ ...string) service.MetricsExporterGaugeCtor {
	return func(labelValues ...string) service.MetricsExporterGauge {
		key := metricKey(name, labelValues)
		return capturedGauge{v: m.value(m.gauges, key), f: m.float(key)}
	}
}

func (m *metricsCapture) NewTimerCtor(string, ...string) service.MetricsExporterTimerCtor {
	return func(...string) service.MetricsExporterTimer { return ignoredTimer{} }
}

func (m *metricsCapture) Close(context.Context) error { return nil }

// TestMetricsLagFollowsTheCommittedWindow: the lag gauge is the time since
// the end of the last committed window (the chain's start), in whole
// seconds; a position without a chain, or with an unreadable start, leaves
// it where it was.
func TestMetricsLagFollowsTheCommittedWindow(t *testing.T) {
	m, capt := capturedMetrics(t)
	const lagName = "doris_binlog_lag_seconds"
	m.refreshLag()
	if _, set := capt.gauge(lagName); set {
		t.Fatalf("lag set before any window was committed")
	}
	snapshotOnly := checkpoint.New()
	m.committed(snapshotOnly)
	if _, set := capt.gauge(lagName); set {
		t.Fatalf("a position without a chain set the lag")
	}

	// An hour back, floored to the second: the lag is at least an hour, and
	// not ten minutes more however slowly the test runs.
	end := time.Now().Add(-time.Hour).Truncate(time.Second)
	st := checkpoint.New()
	st.StartChain(windowplan.BoundAt(end.UnixMilli()).Stored())
	m.committed(st)
	lag, set := capt.gauge(lagName)
	if !set || lag < 3600 || lag > 3600+600 {
		t.Fatalf("lag %d s (set %v) an hour after the committed window end, want 3600 or a little more", lag, set)
	}
	if got := m.ackedWindowEndMs.Load(); got != end.UnixMilli() {
		t.Fatalf("acked window end %d ms, want %d", got, end.UnixMilli())
	}

	bad := checkpoint.New()
	bad.StartChain(checkpoint.Bound{})
	m.committed(bad)
	if got := m.ackedWindowEndMs.Load(); got != end.UnixMilli() {
		t.Fatalf("an unset chain start moved the acked window end to %d", got)
	}
}

// TestMetricsNamesAndLabels: the names and labels docs/operating.md documents are
// the ones reported.
func TestMetricsNamesAndLabels(t *testing.T) {
	m, capt := capturedMetrics(t)
	m.rows.Incr(3, "db.t", checkpoint.PhaseBinlog, "insert")
	m.splitsDone.Set(2, "db.t")
	m.splitsTotal.Set(5, "db.t")
	m.expiredGaps.Incr(1, "db.t")
	m.tables.Set(4, "streaming")
	m.droppedPartitions.Incr(1, "db.t")
	m.unpairedUpdates.Incr(2, "db.t")
	for _, c := range []struct {
		name   string
		labels []string
		want   int64
	}{
		{"doris_binlog_rows_total", []string{"db.t", "binlog", "insert"}, 3},
		{"doris_binlog_expired_gaps_total", []string{"db.t"}, 1},
		{"doris_binlog_dropped_partitions_total", []string{"db.t"}, 1},
		{"doris_binlog_unpaired_updates_total", []string{"db.t"}, 2},
	} {
		if got := capt.counter(c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %d, want %d", c.name, c.labels, got, c.want)
		}
	}
	for _, g := range []struct {
		name   string
		labels []string
		want   int64
	}{
		{"doris_binlog_snapshot_splits_done", []string{"db.t"}, 2},
		{"doris_binlog_snapshot_splits", []string{"db.t"}, 5},
		{"doris_binlog_tables", []string{"streaming"}, 4},
	} {
		if got, set := capt.gauge(g.name, g.labels...); !set || got != g.want {
			t.Errorf("%s%v = %d (set %v), want %d", g.name, g.labels, got, set, g.want)
		}
	}
}
