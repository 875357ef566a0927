package input

import (
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// retryAges tracks the windows being retried, so that a stalled table is
// visible as a number before its binlog expires: failures count in
// doris_binlog_window_retries_total{table}, and
// doris_binlog_window_retry_age_seconds is how long the oldest unfinished
// window has been failing (0 when none is). The gauge moves at every
// failure and every recovery.
type retryAges struct {
	retries *service.MetricCounter // table
	age     *service.MetricGauge

	mu    sync.Mutex
	since map[*windowRetry]time.Time
	now   func() time.Time // time.Now; a test sets its own clock
}

func newRetryAges(m *service.Metrics) *retryAges {
	return &retryAges{
		retries: m.NewCounter(metricWindowRetries, "table"),
		age:     m.NewGauge(metricWindowRetryAge),
		since:   map[*windowRetry]time.Time{},
		now:     time.Now,
	}
}

func (a *retryAges) failed(rt *windowRetry) {
	a.retries.Incr(1, rt.table)
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.since[rt]; !ok {
		a.since[rt] = a.now()
	}
	a.refresh()
}

// done ends rt's incident, if it had one; calling it again is harmless.
func (a *retryAges) done(rt *windowRetry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.since[rt]; !ok {
		return
	}
	delete(a.since, rt)
	a.refresh()
}

func (a *retryAges) refresh() { a.age.Set(a.oldestSeconds()) }

// oldestSeconds is how long the oldest open incident has lasted, in whole
// seconds; 0 when none is open. The caller holds a.mu.
func (a *retryAges) oldestSeconds() int64 {
	var oldest time.Time
	for _, t := range a.since {
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return int64(a.now().Sub(oldest) / time.Second)
}
