package windowplan

import (
	"fmt"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
)

// Logger is where the retry rule reports an incident (a Benthos
// *service.Logger is one).
type Logger interface {
	Warnf(format string, args ...any)
	Infof(format string, args ...any)
}

// RetryConfig is what the retry rule reads of the input's config.
type RetryConfig struct {
	QueryTimeout       time.Duration // request_query_timeout
	ExecMemLimit       int64         // exec_mem_limit, bytes
	Retries            int           // request_retries
	VisibleWaitTimeout time.Duration // binlog_visible_wait_timeout
	// Where the checkpoint is, for the recovery steps of an expired window.
	CheckpointKey, CheckpointCache string
}

// Retry decides, per failed read of one window of one table, what to
// do next: wait and read the same part again, split the part, or stop the
// input. It logs an incident once at warn level, and then at most once a
// minute while it lasts; every failure is counted in
// doris_binlog_window_retries_total and the incident's age in
// doris_binlog_window_retry_age_seconds.
type Retry struct {
	conf        RetryConfig
	log         Logger
	ages        *Ages
	table       string
	w           Window
	bo          Backoff
	waitStarted time.Time // first visible-wait failure of this window
	failures    int
	lastLog     time.Time
	waitSpent   bool // binlog_visible_wait_timeout ran out for this window
	// samePart is the part whose refusals that can pass are counted in
	// sameFailures against request_retries (sameFirst).
	samePart     Window
	sameFailures int
}

// NewRetry starts the retries of window w of table.
func NewRetry(conf RetryConfig, log Logger, ages *Ages, table string, w Window) *Retry {
	return &Retry{conf: conf, log: log, ages: ages, table: table, w: w}
}

// Step is what follows a failed read: wait, then read the part again,
// or read it as two halves.
type Step struct {
	Wait  time.Duration
	Split bool // read the part as two halves (Split), in order
}

// Classify returns the next step for a failed read of part (w, or a piece
// of it), or a fatal error for failures that no retry can fix.
func (rt *Retry) Classify(err error, part Window) (Step, error) {
	rt.failures++
	rt.ages.failed(rt)
	if flight.IsExpired(err) {
		return Step{}, Stopf("%v. The binlog of window [%s, %s) of %s has expired (binlog.ttl_seconds) and min_delta cannot skip it. "+
			"To recover: stop the pipeline, delete checkpoint key %s (and %s.bak) from cache %s or pick a new checkpoint_cache_key, "+
			"and restart with scan_mode: initial to take a fresh snapshot; consider a larger binlog.ttl_seconds",
			err, rt.w.Start, rt.w.End, rt.table, rt.conf.CheckpointKey, rt.conf.CheckpointKey, rt.conf.CheckpointCache)
	}
	if doris.IsPermanent(err) {
		return Step{}, Stopf("binlog window [%s, %s) of %s cannot be read, and reading it again cannot fix it: %v. "+
			"The input stops here instead of retrying until the binlog expires; its checkpoint stays before the undelivered changes, "+
			"so a restart after the cause is fixed reads them", part.Start, part.End, rt.table, err)
	}
	// Window errors come before the size limits: a classic FE's visible-wait
	// text reads "detailMessage = timeout waiting ...", which is Doris
	// asking for the same window again, not a window too large to read.
	we, isWindow := flight.AsWindowError(err)
	switch limit := flight.ClassifyLimit(err); {
	case isWindow:
		if wait, ok := rt.windowWait(we); ok {
			return Step{Wait: wait}, nil
		}
	case IsQueryTimeout(err) || limit == flight.QueryMemory:
		return rt.tooLarge(err, part)
	case IsOutputHeld(err):
		return rt.outputHeld(err, part)
	case limit == flight.MemoryPressure:
		return rt.sameFirst(err, part, limit.String(), "Check the memory of the Doris BEs (their be.INFO names what used it)")
	case limit == flight.Memory:
		return rt.sameFirst(err, part, limit.String(), fmt.Sprintf("Raise exec_mem_limit (%d bytes) or check the memory of the Doris BEs", rt.conf.ExecMemLimit))
	case limit == flight.Timeout:
		return rt.tooLarge(err, part)
	}
	wait := rt.bo.Next()
	rt.logf("Reading binlog window [%s, %s) of %s failed (%d attempts so far), reconnecting in %s; the window is retried, never skipped: %v",
		part.Start, part.End, rt.table, rt.failures, wait.Round(time.Millisecond), err)
	return Step{Wait: wait}, nil
}

// tooLarge handles a part that ran out of request_query_timeout (time
// spent waiting on Doris), Doris's query_timeout while Doris was the slow
// side, or its own exec_mem_limit: the same part needs the same again, so
// halves are read instead, down to one second, which is as fine as @incr
// bounds go.
func (rt *Retry) tooLarge(err error, part Window) (Step, error) {
	if _, ok := Split(part); ok {
		rt.logf("Binlog window [%s, %s) of %s is too large to read within request_query_timeout %s and exec_mem_limit %d bytes; "+
			"reading it as two halves, in order: %v", part.Start, part.End, rt.table, rt.conf.QueryTimeout, rt.conf.ExecMemLimit, err)
		return Step{Split: true}, nil
	}
	return Step{}, Stopf("binlog window [%s, %s) of %s cannot be read even as a single second within request_query_timeout %s "+
		"and exec_mem_limit %d bytes: %v. Raise request_query_timeout or exec_mem_limit and restart; the checkpoint stays before the window",
		part.Start, part.End, rt.table, rt.conf.QueryTimeout, rt.conf.ExecMemLimit, err)
}

// sameFirst handles refusals that can pass: memory pressure on the BE
// (the process or its workload group cancelled the query to protect
// itself), a memory refusal that does not say whose limit it was, and
// Doris's query_timeout used up by a slow output. The same part is read
// again with backoff, up to request_retries attempts in all, and only then
// as two halves: Doris's memory GC cancels the largest queries first, so a
// part refused every time is likely the largest, and its halves need less.
// A one-second part refused every time stops the input.
func (rt *Retry) sameFirst(err error, part Window, cause, remedy string) (Step, error) {
	if part != rt.samePart {
		rt.samePart, rt.sameFailures = part, 0
	}
	rt.sameFailures++
	attempts := max(rt.conf.Retries, 1)
	wait := rt.bo.Next()
	if rt.sameFailures < attempts {
		rt.log.Warnf("Reading binlog window [%s, %s) of %s failed on %s (attempt %d of %d); reading the same window again in %s, never skipping it: %v",
			part.Start, part.End, rt.table, cause, rt.sameFailures, attempts, wait.Round(time.Millisecond), err)
		return Step{Wait: wait}, nil
	}
	if _, ok := Split(part); ok {
		rt.log.Warnf("Reading binlog window [%s, %s) of %s failed on %s %d times in a row (request_retries %d); reading it as two halves, in order, in %s: %v",
			part.Start, part.End, rt.table, cause, rt.sameFailures, rt.conf.Retries, wait.Round(time.Millisecond), err)
		return Step{Split: true, Wait: wait}, nil
	}
	return Step{}, Stopf("binlog window [%s, %s) of %s failed on %s %d times in a row (request_retries %d), even as a single second: %v. "+
		"%s, and restart; the checkpoint stays before the window",
		part.Start, part.End, rt.table, cause, rt.sameFailures, rt.conf.Retries, err, remedy)
}

// outputHeld handles Doris's query_timeout used up while the reader held
// the query for a slow output: the output's doing, not the part's size, so
// the same part is read again with backoff for as long as it happens,
// never halved (its halves would be held as long) and never fatal; a stuck
// output is the output's to report. Each attempt is logged with the remedy.
func (rt *Retry) outputHeld(err error, part Window) (Step, error) {
	wait := rt.bo.Next()
	rt.log.Warnf("Reading binlog window [%s, %s) of %s: Doris's query_timeout ended the query while the output held it; reading the same window again in %s. "+
		"Raise Doris's query_timeout (SET GLOBAL query_timeout) or find what slows the output: %v",
		part.Start, part.End, rt.table, wait.Round(time.Millisecond), err)
	return Step{Wait: wait}, nil
}

// windowWait handles Doris's "not yet" answers: 5100 waits and retries; 5101
// retries within binlog_visible_wait_timeout, after which it is handled as
// any other error (still retried, never skipped).
func (rt *Retry) windowWait(we *flight.WindowError) (time.Duration, bool) {
	wait := min(max(we.RetryAfter, time.Second), 5*time.Second)
	if we.Code == 5100 {
		rt.logf("Binlog window [%s, %s) of %s is not ready yet (%s %s), retrying in %s",
			rt.w.Start, rt.w.End, rt.table, we.Name, we.Reason, wait)
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
				"reconnecting with backoff; the window is retried, never skipped", rt.w.Start, rt.w.End, rt.table, rt.conf.VisibleWaitTimeout, we.Name, we.Reason)
			rt.lastLog = time.Now()
		}
		return 0, false
	}
	rt.logf("Binlog window [%s, %s) of %s waits for transactions to become visible (%s %s), retrying the same window in %s",
		rt.w.Start, rt.w.End, rt.table, we.Name, we.Reason, wait)
	return wait, true
}

func (rt *Retry) logf(format string, args ...any) {
	if rt.failures == 1 || time.Since(rt.lastLog) >= time.Minute {
		rt.log.Warnf(format, args...)
		rt.lastLog = time.Now()
	}
}

// Recovered ends the incident: the window was read.
func (rt *Retry) Recovered() {
	rt.ages.Done(rt)
	if rt.failures > 0 {
		rt.log.Infof("Binlog window [%s, %s) of %s read after %d failed attempt(s)", rt.w.Start, rt.w.End, rt.table, rt.failures)
	}
}
