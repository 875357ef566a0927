package storage

import (
	"fmt"
	"time"
)

// Window error names and reasons (doris-facts §2.4, §10).
const (
	ErrNameWindowNotReady     = "ERR_INCR_WINDOW_NOT_READY"
	ErrNameVisibleWaitTimeout = "ERR_INCR_VISIBLE_WAIT_TIMEOUT"
	reasonEndAfterCurrent     = "END_AFTER_CURRENT_TSO"
	reasonVisibleWaitTimeout  = "VISIBLE_WAIT_TIMEOUT"
)

// windowError builds a 5100/5101 error with Doris's field list.
func (s *Store) windowError(code int, name, reason string, endMs, retryAfterMs int64) *Error {
	cur := s.CurrentTSO()
	committed := s.oracle.committed()
	msg := fmt.Sprintf("%s: reason=%s, requestedEndTimestampMs=%d, currentTSO=%d, currentTSOPhysicalTimeMs=%d, committedTSO=%d, committedTSOPhysicalTimeMs=%d, retryAfterMs=%d, timeoutMs=%d",
		name, reason, endMs, cur.Value, cur.PhysicalMs, committed.Value, committed.PhysicalMs,
		retryAfterMs, s.opts.VisibleWaitTimeout/time.Millisecond)
	return &Error{Code: code, Name: name, Message: msg}
}

func (s *Store) endAfterCurrentError(endMs, curMs int64) *Error {
	return s.windowError(CodeWindowNotReady, ErrNameWindowNotReady, reasonEndAfterCurrent, endMs, max(endMs-curMs, 1))
}

func (s *Store) visibleWaitError(endMs int64) *Error {
	return s.windowError(CodeVisibleWaitTmout, ErrNameVisibleWaitTimeout, reasonVisibleWaitTimeout, endMs, 0)
}

// ForceVisibleWaitTimeouts makes the next n @incr queries fail with 5101.
func (s *Store) ForceVisibleWaitTimeouts(n int) {
	s.mu.Lock()
	s.forced5101 += n
	s.mu.Unlock()
}

// ClearForcedVisibleWaitTimeouts drops forced 5101s that were not used yet.
func (s *Store) ClearForcedVisibleWaitTimeouts() {
	s.mu.Lock()
	s.forced5101 = 0
	s.mu.Unlock()
}

func (s *Store) takeForced5101() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forced5101 > 0 {
		s.forced5101--
		return true
	}
	return false
}
