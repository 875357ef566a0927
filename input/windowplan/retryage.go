package windowplan

import (
	"sync"
	"time"
)

// Counter counts with labels (a Benthos *service.MetricCounter is one).
type Counter interface {
	Incr(count int64, labelValues ...string)
}

// Gauge holds a value (a Benthos *service.MetricGauge is one).
type Gauge interface {
	Set(value int64, labelValues ...string)
}

// Ages tracks the windows being retried, so that a stalled table is
// visible as a number before its binlog expires: failures count in
// retries{table} (doris_binlog_window_retries_total), and age
// (doris_binlog_window_retry_age_seconds) is how long the oldest
// unfinished window has been failing (0 when none is). The gauge moves at
// every failure and every recovery.
type Ages struct {
	retries Counter // table
	age     Gauge

	mu    sync.Mutex
	since map[*Retry]time.Time
	now   func() time.Time // time.Now; a test sets its own clock
}

// NewAges tracks retries in the given metrics.
func NewAges(retries Counter, age Gauge) *Ages {
	return &Ages{retries: retries, age: age, since: map[*Retry]time.Time{}, now: time.Now}
}

func (a *Ages) failed(rt *Retry) {
	a.retries.Incr(1, rt.table)
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.since[rt]; !ok {
		a.since[rt] = a.now()
	}
	a.refresh()
}

// Done ends rt's incident, if it had one; calling it again is harmless.
func (a *Ages) Done(rt *Retry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.since[rt]; !ok {
		return
	}
	delete(a.since, rt)
	a.refresh()
}

func (a *Ages) refresh() { a.age.Set(a.oldestSeconds()) }

// oldestSeconds is how long the oldest open incident has lasted, in whole
// seconds; 0 when none is open. The caller holds a.mu.
func (a *Ages) oldestSeconds() int64 {
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
