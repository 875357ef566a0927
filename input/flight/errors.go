package flight

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Doris window error codes (apache/doris#67820), sent as MySQL error codes
// and as the doris-error-code gRPC metadata value.
const (
	CodeWindowNotReady     = 5100
	CodeVisibleWaitTimeout = 5101

	NameWindowNotReady     = "ERR_INCR_WINDOW_NOT_READY"
	NameVisibleWaitTimeout = "ERR_INCR_VISIBLE_WAIT_TIMEOUT"

	// ReasonClassicVisibleWait marks an older FE's plain INTERNAL visible-wait
	// timeout, which is retried like 5101.
	ReasonClassicVisibleWait = "CLASSIC_VISIBLE_WAIT"
)

const (
	mdErrorCode = "doris-error-code"
	mdErrorName = "doris-error-name"

	expiredText = "Row binlog offset has expired according to binlog.ttl_seconds"
)

// classicVisibleWaitTexts are the INTERNAL error texts of FEs before #67820
// that mean "the window is not visible yet" (apache/doris#67594).
var classicVisibleWaitTexts = []string{
	"timeout waiting previous transactions finish for time-based read",
	"timeout synchronizing visible versions for time-based read",
	"timeout waiting follower journal replay for time-based read",
	"TSO timestamp is not calibrated",
}

// WindowError is a retryable refusal of an @incr window: Doris asks the
// client to retry the same window later (5100 not ready, 5101 visible-wait
// timeout, or a classic visible-wait text reported as 5101).
type WindowError struct {
	Code       int           // 5100 or 5101
	Name       string        // ERR_INCR_WINDOW_NOT_READY or ERR_INCR_VISIBLE_WAIT_TIMEOUT
	Reason     string        // reason=... from the message, or CLASSIC_VISIBLE_WAIT
	RetryAfter time.Duration // retryAfterMs from the message; 0 when absent
	Message    string        // the server's error description

	cause error
}

func (e *WindowError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "doris %s (%d)", e.Name, e.Code)
	if e.Reason != "" {
		fmt.Fprintf(&b, " reason %s", e.Reason)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, ", retry after %s", e.RetryAfter)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap keeps the gRPC status of the original error reachable.
func (e *WindowError) Unwrap() error { return e.cause }

// AsWindowError reports whether err is a retryable window refusal. It finds a
// *WindowError in the chain (Query builds one from gRPC metadata), and
// otherwise classifies the error text.
func AsWindowError(err error) (*WindowError, bool) {
	if err == nil {
		return nil, false
	}
	var we *WindowError
	if errors.As(err, &we) {
		return we, true
	}
	msg := err.Error()
	if s, ok := status.FromError(err); ok {
		msg = s.Message()
	}
	we = windowErrorFromText(msg)
	if we == nil {
		return nil, false
	}
	we.cause = err
	return we, true
}

// IsExpired reports whether err is Doris's Row Binlog TTL expiry, which is
// never retryable.
func IsExpired(err error) bool {
	return err != nil && strings.Contains(err.Error(), expiredText)
}

// IsUnauthenticated reports whether err carries gRPC UNAUTHENTICATED.
func IsUnauthenticated(err error) bool {
	return err != nil && status.Code(err) == codes.Unauthenticated
}

// classifyExecuteError turns an Execute failure into a *WindowError when the
// response metadata or the description says so; otherwise it returns nil.
func classifyExecuteError(err error, header, trailer metadata.MD) *WindowError {
	msg := err.Error()
	if s, ok := status.FromError(err); ok {
		msg = s.Message()
	}
	md := metadata.Join(header, trailer)
	if code, ok := metadataCode(md); ok {
		t := parseWindowText(msg)
		name := lastValue(md, mdErrorName)
		if name == "" {
			name = nameForCode(code)
		}
		return &WindowError{Code: code, Name: name, Reason: t.Reason, RetryAfter: t.RetryAfter, Message: msg, cause: err}
	}
	we := windowErrorFromText(msg)
	if we != nil {
		we.cause = err
	}
	return we
}

func metadataCode(md metadata.MD) (int, bool) {
	v := lastValue(md, mdErrorCode)
	if v == "" {
		return 0, false
	}
	code, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || (code != CodeWindowNotReady && code != CodeVisibleWaitTimeout) {
		return 0, false
	}
	return code, true
}

func lastValue(md metadata.MD, key string) string {
	vals := md.Get(key)
	if len(vals) == 0 {
		return ""
	}
	return vals[len(vals)-1]
}

func nameForCode(code int) string {
	if code == CodeWindowNotReady {
		return NameWindowNotReady
	}
	return NameVisibleWaitTimeout
}

// windowErrorFromText classifies a description without metadata.
func windowErrorFromText(msg string) *WindowError {
	t := parseWindowText(msg)
	if t.Code != 0 {
		return &WindowError{Code: t.Code, Name: t.Name, Reason: t.Reason, RetryAfter: t.RetryAfter, Message: msg}
	}
	for _, s := range classicVisibleWaitTexts {
		if strings.Contains(msg, s) {
			return &WindowError{Code: CodeVisibleWaitTimeout, Name: NameVisibleWaitTimeout, Reason: ReasonClassicVisibleWait, Message: msg}
		}
	}
	return nil
}
