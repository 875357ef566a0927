package flight

import (
	"strings"
	"testing"
	"time"
)

func TestParseWindowText(t *testing.T) {
	cases := []struct {
		msg  string
		want windowText
	}{
		{notReadyMsg, windowText{5100, NameWindowNotReady, "END_AFTER_CURRENT_TSO", 1500 * time.Millisecond}},
		{visibleWaitMsg, windowText{5101, NameVisibleWaitTimeout, "VISIBLE_WAIT_TIMEOUT", 0}},
		{"ERR_INCR_WINDOW_NOT_READY: reason=TSO_RECOVERING", windowText{5100, NameWindowNotReady, "TSO_RECOVERING", 0}},
		{"ERR_INCR_WINDOW_NOT_READY", windowText{Code: 5100, Name: NameWindowNotReady}},
		{"ERR_INCR_WINDOW_NOT_READY: reason=, retryAfterMs=-5", windowText{Code: 5100, Name: NameWindowNotReady}},
		{"ERR_INCR_WINDOW_NOT_READY: retryAfterMs=abc", windowText{Code: 5100, Name: NameWindowNotReady}},
		{"ERR_INCR_WINDOW_NOT_READY: retryAfterMs=99999999999999999999", windowText{Code: 5100, Name: NameWindowNotReady}},
		{"ERR_INCR_WINDOW_NOT_READY: retryAfterMs=9223372036854775807", windowText{5100, NameWindowNotReady, "", time.Duration(1<<63 - 1)}},
		{"xreason=NO, reason=YES", windowText{Reason: "YES"}},
		{"", windowText{}},
		{"get flight info statement failed, Unknown table", windowText{}},
	}
	for _, tc := range cases {
		if got := parseWindowText(tc.msg); got != tc.want {
			t.Errorf("parseWindowText(%q) = %+v, want %+v", tc.msg, got, tc.want)
		}
	}
}

func FuzzParseWindowText(f *testing.F) {
	for _, s := range []string{notReadyMsg, visibleWaitMsg, "reason=", "retryAfterMs=", "ERR_INCR_VISIBLE_WAIT_TIMEOUT reason=\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := parseWindowText(msg)
		if got.RetryAfter < 0 {
			t.Fatalf("negative RetryAfter %v", got.RetryAfter)
		}
		if strings.ContainsAny(got.Reason, " ,;\t\n\r") {
			t.Fatalf("Reason %q holds a separator", got.Reason)
		}
		if got.Reason != "" && !strings.Contains(msg, "reason="+got.Reason) {
			t.Fatalf("Reason %q not in %q", got.Reason, msg)
		}
		switch got.Code {
		case 0:
			if got.Name != "" || strings.Contains(msg, NameWindowNotReady) || strings.Contains(msg, NameVisibleWaitTimeout) {
				t.Fatalf("missed a window name in %q: %+v", msg, got)
			}
		case CodeWindowNotReady, CodeVisibleWaitTimeout:
			if nameForCode(got.Code) != got.Name || !strings.Contains(msg, got.Name) {
				t.Fatalf("code %d with name %q for %q", got.Code, got.Name, msg)
			}
		default:
			t.Fatalf("unexpected code %d", got.Code)
		}
		if windowErrorFromText(msg) == nil && got.Code != 0 {
			t.Fatalf("windowErrorFromText ignored a window name in %q", msg)
		}
	})
}
