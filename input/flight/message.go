package flight

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// windowText is what a Doris window error message says, e.g.
// "ERR_INCR_WINDOW_NOT_READY: reason=END_AFTER_CURRENT_TSO, ..., retryAfterMs=1000, timeoutMs=0".
type windowText struct {
	Code       int // 0 when no window error name occurs
	Name       string
	Reason     string
	RetryAfter time.Duration
}

// parseWindowText is a pure parser of a window error description. It never
// fails: missing or malformed fields stay zero.
func parseWindowText(msg string) windowText {
	var t windowText
	switch {
	case strings.Contains(msg, NameWindowNotReady):
		t.Code, t.Name = CodeWindowNotReady, NameWindowNotReady
	case strings.Contains(msg, NameVisibleWaitTimeout):
		t.Code, t.Name = CodeVisibleWaitTimeout, NameVisibleWaitTimeout
	}
	t.Reason = fieldValue(msg, "reason=")
	if ms, err := strconv.ParseInt(fieldValue(msg, "retryAfterMs="), 10, 64); err == nil && ms > 0 {
		t.RetryAfter = msToDuration(ms)
	}
	return t
}

// fieldValue returns the token after the first key occurrence that starts a
// word, up to the next separator. The word-start check keeps "reason=" from
// matching inside e.g. "xreason=".
func fieldValue(msg, key string) string {
	for from := 0; from <= len(msg)-len(key); {
		i := strings.Index(msg[from:], key)
		if i < 0 {
			return ""
		}
		i += from
		if i == 0 || isSeparator(msg[i-1]) {
			rest := msg[i+len(key):]
			end := strings.IndexFunc(rest, func(r rune) bool { return r < 0x80 && isSeparator(byte(r)) })
			if end < 0 {
				end = len(rest)
			}
			return rest[:end]
		}
		from = i + 1
	}
	return ""
}

func isSeparator(b byte) bool {
	switch b {
	case ' ', ',', ';', '\t', '\n', '\r', '(', ')', '[', ']', '{', '}', '"', '\'':
		return true
	}
	return false
}

func msToDuration(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms) * time.Millisecond
}
