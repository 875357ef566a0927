package harness

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// MetricsCapture records the counters a stream reports, for tests that check
// a metric moved. It is fed by the "harness_capture" metrics exporter.
type MetricsCapture struct {
	mu       sync.Mutex
	counters map[string]*atomic.Int64
	gauges   map[string]*captureGauge
}

var (
	captures   sync.Map // id -> *MetricsCapture
	captureSeq atomic.Int64
)

func init() {
	spec := service.NewConfigSpec().Field(service.NewStringField("id"))
	err := service.RegisterMetricsExporter("harness_capture", spec, func(conf *service.ParsedConfig, _ *service.Logger) (service.MetricsExporter, error) {
		id, err := conf.FieldString("id")
		if err != nil {
			return nil, err
		}
		v, ok := captures.Load(id)
		if !ok {
			return nil, fmt.Errorf("harness_capture: no capture with id %q", id)
		}
		return v.(*MetricsCapture), nil
	})
	if err != nil {
		panic(err)
	}
}

// Counter returns the sum of every counter named name, over all label values.
func (m *MetricsCapture) Counter(name string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for k, c := range m.counters {
		if k == name || strings.HasPrefix(k, name+"{") {
			n += c.Load()
		}
	}
	return n
}

// Names returns every counter name with its label values, for leak checks.
func (m *MetricsCapture) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.counters))
	for k := range m.counters {
		out = append(out, k)
	}
	return out
}

func (m *MetricsCapture) counter(key string) *atomic.Int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counters == nil {
		m.counters = map[string]*atomic.Int64{}
	}
	c, ok := m.counters[key]
	if !ok {
		c = &atomic.Int64{}
		m.counters[key] = c
	}
	return c
}

type captureCounter struct{ c *atomic.Int64 }

func (c captureCounter) Incr(n int64) { c.c.Add(n) }

type noopMetric struct{}

func (noopMetric) Timing(int64) {}
func (noopMetric) Set(int64)    {}

// NewCounterCtor implements service.MetricsExporter.
func (m *MetricsCapture) NewCounterCtor(name string, labelKeys ...string) service.MetricsExporterCounterCtor {
	return func(labelValues ...string) service.MetricsExporterCounter {
		key := name
		if len(labelValues) > 0 {
			key += "{" + strings.Join(labelValues, ",") + "}"
		}
		return captureCounter{c: m.counter(key)}
	}
}

// NewTimerCtor implements service.MetricsExporter; timings are not kept.
func (m *MetricsCapture) NewTimerCtor(string, ...string) service.MetricsExporterTimerCtor {
	return func(...string) service.MetricsExporterTimer { return noopMetric{} }
}

// NewGaugeCtor implements service.MetricsExporter: each gauge keeps its
// last and its highest value.
func (m *MetricsCapture) NewGaugeCtor(name string, _ ...string) service.MetricsExporterGaugeCtor {
	return func(labelValues ...string) service.MetricsExporterGauge {
		key := name
		if len(labelValues) > 0 {
			key += "{" + strings.Join(labelValues, ",") + "}"
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.gauges == nil {
			m.gauges = map[string]*captureGauge{}
		}
		g, ok := m.gauges[key]
		if !ok {
			g = &captureGauge{}
			m.gauges[key] = g
		}
		return g
	}
}

// GaugeMax returns the highest value any gauge named name (any labels) was
// set to, and whether it was set at all.
func (m *MetricsCapture) GaugeMax(name string) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var hi int64
	seen := false
	for k, g := range m.gauges {
		if k != name && !strings.HasPrefix(k, name+"{") {
			continue
		}
		if v, ok := g.peak(); ok && (!seen || v > hi) {
			hi, seen = v, true
		}
	}
	return hi, seen
}

type captureGauge struct {
	mu       sync.Mutex
	set      bool
	last, hi int64
}

func (g *captureGauge) Set(v int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.set || v > g.hi {
		g.hi = v
	}
	g.set, g.last = true, v
}

func (g *captureGauge) peak() (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hi, g.set
}

// Close implements service.MetricsExporter.
func (m *MetricsCapture) Close(context.Context) error { return nil }

// metricsYAML registers m and returns the metrics config that feeds it.
func (m *MetricsCapture) metricsYAML(t testing.TB) string {
	id := fmt.Sprintf("capture-%d", captureSeq.Add(1))
	captures.Store(id, m)
	t.Cleanup(func() { captures.Delete(id) })
	return "harness_capture:\n  id: " + id + "\n"
}

// YAML registers m and returns the metrics config that feeds it, for tests
// that build their own streams.
func (m *MetricsCapture) YAML(t testing.TB) string { return m.metricsYAML(t) }
