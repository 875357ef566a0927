package prometheus

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redpanda-data/benthos/v4/public/service"
)

// Options configure New; the zero value exports histograms with the default
// buckets and no runtime collectors.
type Options struct {
	Prefix         string
	Timing         string // "histogram" (default) or "summary"
	Buckets        []float64
	Objectives     map[float64]float64 // summary quantile -> allowed error
	GoMetrics      bool
	ProcessMetrics bool
}

// Exporter is a service.MetricsExporter over its own Prometheus registry;
// HandlerFunc serves the registry on Benthos's /metrics.
type Exporter struct {
	opts Options
	reg  *prom.Registry
	log  *service.Logger

	mu sync.Mutex
	// Benthos asks for the same metric once per component that reports it;
	// the vectors are shared by name.
	vecs map[string]family
}

type family struct {
	kind   string // "counter", "gauge", "timer"
	labels []string
	vec    any
}

// New builds an exporter with a fresh registry.
func New(opts Options, log *service.Logger) (*Exporter, error) {
	if opts.Prefix != "" && !prefixRe.MatchString(opts.Prefix) {
		return nil, fmt.Errorf("%s %q must match [a-zA-Z_][a-zA-Z0-9_]*", fieldPrefix, opts.Prefix)
	}
	switch opts.Timing {
	case "":
		opts.Timing = timingHistogram
	case timingHistogram, timingSummary:
	default:
		return nil, fmt.Errorf("%s must be one of %s, %s; got %q", fieldTiming, timingHistogram, timingSummary, opts.Timing)
	}
	if opts.Timing == timingHistogram {
		if len(opts.Buckets) == 0 {
			opts.Buckets = prom.DefBuckets
		}
		for i := 1; i < len(opts.Buckets); i++ {
			if opts.Buckets[i] <= opts.Buckets[i-1] {
				return nil, fmt.Errorf("%s must be strictly increasing, got %v", fieldBuckets, opts.Buckets)
			}
		}
	}
	e := &Exporter{opts: opts, reg: prom.NewRegistry(), log: log, vecs: map[string]family{}}
	if opts.GoMetrics {
		if err := e.reg.Register(collectors.NewGoCollector()); err != nil {
			return nil, fmt.Errorf("go collector: %w", err)
		}
	}
	if opts.ProcessMetrics {
		if err := e.reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
			return nil, fmt.Errorf("process collector: %w", err)
		}
	}
	return e, nil
}

// Registry is the exporter's registry, for tests and embedding.
func (e *Exporter) Registry() *prom.Registry { return e.reg }

// HandlerFunc is picked up by Benthos and served at /metrics and /stats.
func (e *Exporter) HandlerFunc() http.HandlerFunc {
	h := promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return h.ServeHTTP
}

// vec returns the shared vector for name, creating it with mk. A name reused
// with another kind or other labels cannot be exported twice, so that use is
// logged once and dropped (ok false) rather than failing the stream.
func (e *Exporter) vec(kind, name string, labels []string, mk func() (prom.Collector, any)) (any, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f, ok := e.vecs[name]; ok {
		if f.kind == kind && slices.Equal(f.labels, labels) {
			return f.vec, true
		}
		e.warnf("metric %s is reported as a %s with labels %v and as a %s with labels %v; only the first is exported", name, f.kind, f.labels, kind, labels)
		return nil, false
	}
	c, v := mk()
	if err := e.reg.Register(c); err != nil {
		var are prom.AlreadyRegisteredError
		if !errors.As(err, &are) {
			e.warnf("metric %s cannot be exported: %v", name, err)
			return nil, false
		}
	}
	e.vecs[name] = family{kind: kind, labels: slices.Clone(labels), vec: v}
	return v, true
}

func (e *Exporter) warnf(format string, args ...any) {
	if e.log != nil {
		e.log.Warnf(format, args...)
	}
}

// NewCounterCtor implements service.MetricsExporter.
func (e *Exporter) NewCounterCtor(name string, labelKeys ...string) service.MetricsExporterCounterCtor {
	pname := e.opts.name(counterName(name))
	v, ok := e.vec("counter", pname, labelKeys, func() (prom.Collector, any) {
		cv := prom.NewCounterVec(prom.CounterOpts{Name: pname, Help: help("counter", name)}, labelKeys)
		return cv, cv
	})
	if !ok {
		return func(...string) service.MetricsExporterCounter { return discard{} }
	}
	cv := v.(*prom.CounterVec)
	if len(labelKeys) == 0 {
		// A counter without labels is exported at 0 before its first
		// increment, so rate() and alerts see it from the first scrape.
		cv.WithLabelValues()
	}
	return func(labelValues ...string) service.MetricsExporterCounter {
		return counter{c: cv.WithLabelValues(labelValues...)}
	}
}

// NewGaugeCtor implements service.MetricsExporter.
func (e *Exporter) NewGaugeCtor(name string, labelKeys ...string) service.MetricsExporterGaugeCtor {
	pname := e.opts.name(gaugeName(name))
	v, ok := e.vec("gauge", pname, labelKeys, func() (prom.Collector, any) {
		gv := prom.NewGaugeVec(prom.GaugeOpts{Name: pname, Help: help("gauge", name)}, labelKeys)
		return gv, gv
	})
	if !ok {
		return func(...string) service.MetricsExporterGauge { return discard{} }
	}
	gv := v.(*prom.GaugeVec)
	return func(labelValues ...string) service.MetricsExporterGauge {
		return gauge{g: gv.WithLabelValues(labelValues...)}
	}
}

// NewTimerCtor implements service.MetricsExporter.
func (e *Exporter) NewTimerCtor(name string, labelKeys ...string) service.MetricsExporterTimerCtor {
	pname := e.opts.name(timerName(name))
	v, ok := e.vec("timer", pname, labelKeys, func() (prom.Collector, any) {
		if e.opts.Timing == timingSummary {
			sv := prom.NewSummaryVec(prom.SummaryOpts{Name: pname, Help: help("timer", name), Objectives: e.opts.Objectives}, labelKeys)
			return sv, prom.ObserverVec(sv)
		}
		hv := prom.NewHistogramVec(prom.HistogramOpts{Name: pname, Help: help("timer", name), Buckets: e.opts.Buckets}, labelKeys)
		return hv, prom.ObserverVec(hv)
	})
	if !ok {
		return func(...string) service.MetricsExporterTimer { return discard{} }
	}
	ov := v.(prom.ObserverVec)
	return func(labelValues ...string) service.MetricsExporterTimer {
		return timer{o: ov.WithLabelValues(labelValues...)}
	}
}

// Close implements service.MetricsExporter; a scrape after Close still works.
func (e *Exporter) Close(context.Context) error { return nil }

type counter struct{ c prom.Counter }

// Incr ignores negative deltas, which Prometheus counters cannot take.
func (c counter) Incr(n int64) {
	if n > 0 {
		c.c.Add(float64(n))
	}
}

func (c counter) IncrFloat64(n float64) {
	if n > 0 {
		c.c.Add(n)
	}
}

type gauge struct{ g prom.Gauge }

func (g gauge) Set(v int64)          { g.g.Set(float64(v)) }
func (g gauge) SetFloat64(v float64) { g.g.Set(v) }

type timer struct{ o prom.Observer }

// Timing takes nanoseconds, as every Benthos timer reports.
func (t timer) Timing(ns int64) { t.o.Observe(float64(ns) / 1e9) }

type discard struct{}

func (discard) Incr(int64)   {}
func (discard) Set(int64)    {}
func (discard) Timing(int64) {}
