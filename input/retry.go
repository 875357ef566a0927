package input

import (
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
)

// backoff grows from 1s to 30s with jitter, for errors that are not Doris's
// own "retry this window" answers.
type backoff struct{ attempt int }

func (b *backoff) next() time.Duration {
	b.attempt++
	return doris.Backoff(time.Second, 30*time.Second, b.attempt)
}

// windowRetry decides, per failed read of one window, how long to wait before
// reading the same window again. It logs an incident once at warn level, and
// then at most once a minute while it lasts.
type windowRetry struct {
	conf        *Config
	log         *service.Logger
	table       string
	w           window
	bo          backoff
	waitStarted time.Time // first visible-wait failure of this window
	failures    int
	lastLog     time.Time
	waitSpent   bool // binlog_visible_wait_timeout ran out for this window
}

func newWindowRetry(conf *Config, log *service.Logger, table string, w window) *windowRetry {
	return &windowRetry{conf: conf, log: log, table: table, w: w}
}

// classify returns how long to wait, or a fatal error for failures that no
// retry can fix.
func (rt *windowRetry) classify(err error) (time.Duration, error) {
	rt.failures++
	if flight.IsExpired(err) {
		return 0, fatalf("%v. The binlog of window [%s, %s) of %s has expired (binlog.ttl_seconds) and min_delta cannot skip it. "+
			"To recover: stop the pipeline, delete checkpoint key %s (and %s.bak) from cache %s or pick a new checkpoint_cache_key, "+
			"and restart with scan_mode: initial to take a fresh snapshot; consider a larger binlog.ttl_seconds",
			err, rt.w.start, rt.w.end, rt.table, rt.conf.CheckpointKey, rt.conf.CheckpointKey, rt.conf.CheckpointCache)
	}
	if we, ok := flight.AsWindowError(err); ok {
		if wait, ok := rt.windowWait(we); ok {
			return wait, nil
		}
	}
	wait := rt.bo.next()
	rt.logf("Reading binlog window [%s, %s) of %s failed (%d attempts so far), reconnecting in %s; the window is retried, never skipped: %v",
		rt.w.start, rt.w.end, rt.table, rt.failures, wait.Round(time.Millisecond), err)
	return wait, nil
}

// windowWait handles Doris's "not yet" answers: 5100 waits and retries; 5101
// retries within binlog_visible_wait_timeout, after which it is handled as
// any other error (still retried, never skipped).
func (rt *windowRetry) windowWait(we *flight.WindowError) (time.Duration, bool) {
	wait := min(max(we.RetryAfter, time.Second), 5*time.Second)
	if we.Code == 5100 {
		rt.logf("Binlog window [%s, %s) of %s is not ready yet (%s %s), retrying in %s",
			rt.w.start, rt.w.end, rt.table, we.Name, we.Reason, wait)
		return wait, true
	}
	if rt.waitStarted.IsZero() {
		rt.waitStarted = time.Now()
	}
	if rt.conf.VisibleWaitTimeout <= 0 || time.Since(rt.waitStarted) >= rt.conf.VisibleWaitTimeout {
		// The switch to reconnects is news even when the wait itself was
		// already logged, so it is logged once on its own.
		if !rt.waitSpent {
			rt.waitSpent = true
			rt.log.Warnf("Binlog window [%s, %s) of %s is still waiting for transactions to become visible after binlog_visible_wait_timeout %s (%s %s): "+
				"reconnecting with backoff; the window is retried, never skipped", rt.w.start, rt.w.end, rt.table, rt.conf.VisibleWaitTimeout, we.Name, we.Reason)
			rt.lastLog = time.Now()
		}
		return 0, false
	}
	rt.logf("Binlog window [%s, %s) of %s waits for transactions to become visible (%s %s), retrying the same window in %s",
		rt.w.start, rt.w.end, rt.table, we.Name, we.Reason, wait)
	return wait, true
}

func (rt *windowRetry) logf(format string, args ...any) {
	if rt.failures == 1 || time.Since(rt.lastLog) >= time.Minute {
		rt.log.Warnf(format, args...)
		rt.lastLog = time.Now()
	}
}

func (rt *windowRetry) recovered() {
	if rt.failures > 0 {
		rt.log.Infof("Binlog window [%s, %s) of %s read after %d failed attempt(s)", rt.w.start, rt.w.end, rt.table, rt.failures)
	}
}
