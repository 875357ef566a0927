package flight

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

const (
	notReadyMsg = "ERR_INCR_WINDOW_NOT_READY: reason=END_AFTER_CURRENT_TSO, requestedEndTimestampMs=1767225600000, " +
		"currentTSO=463374302208458752, currentTSOPhysicalTimeMs=1767225590000, committedTSO=463374302208458752, " +
		"committedTSOPhysicalTimeMs=1767225590000, retryAfterMs=1500, timeoutMs=0"
	visibleWaitMsg = "ERR_INCR_VISIBLE_WAIT_TIMEOUT: reason=VISIBLE_WAIT_TIMEOUT, requestedEndTimestampMs=1767225600000, " +
		"currentTSO=1, currentTSOPhysicalTimeMs=2, committedTSO=3, committedTSOPhysicalTimeMs=4, retryAfterMs=0, timeoutMs=5000"
)

func internalMsg(doris string) string {
	return "get flight info statement failed, " + doris + ", root cause, error code: 1105, error msg: " + doris
}

func windowMD(code, name string) metadata.MD {
	return metadata.Pairs("doris-error-code", code, "doris-error-name", name)
}

// TestExecuteErrorClassification drives every Doris error shape through a
// real GetFlightInfo and checks what the caller can tell from the error.
func TestExecuteErrorClassification(t *testing.T) {
	type want struct {
		window     bool
		code       int
		name       string
		reason     string
		retryAfter time.Duration
		expired    bool
	}
	cases := []struct {
		name string
		sc   scenario
		want want
	}{
		{"5100 in trailers", scenario{Err: status.Error(codes.Unavailable, notReadyMsg), Trailer: windowMD("5100", NameWindowNotReady)},
			want{window: true, code: 5100, name: NameWindowNotReady, reason: "END_AFTER_CURRENT_TSO", retryAfter: 1500 * time.Millisecond}},
		{"5101 in trailers", scenario{Err: status.Error(codes.Unavailable, visibleWaitMsg), Trailer: windowMD("5101", NameVisibleWaitTimeout)},
			want{window: true, code: 5101, name: NameVisibleWaitTimeout, reason: "VISIBLE_WAIT_TIMEOUT"}},
		{"5100 in headers", scenario{Err: status.Error(codes.Unavailable, "window refused, reason=TSO_RECOVERING"), Header: windowMD("5100", NameWindowNotReady)},
			want{window: true, code: 5100, name: NameWindowNotReady, reason: "TSO_RECOVERING"}},
		{"metadata code without name", scenario{Err: status.Error(codes.Unavailable, "reason=WINDOW_NOT_READY, retryAfterMs=20"), Trailer: metadata.Pairs("doris-error-code", "5100")},
			want{window: true, code: 5100, name: NameWindowNotReady, reason: "WINDOW_NOT_READY", retryAfter: 20 * time.Millisecond}},
		{"5101 text without metadata", scenario{Err: status.Error(codes.Unavailable, visibleWaitMsg)},
			want{window: true, code: 5101, name: NameVisibleWaitTimeout, reason: "VISIBLE_WAIT_TIMEOUT"}},
		{"5100 text inside INTERNAL", scenario{Err: status.Error(codes.Internal, internalMsg(notReadyMsg))},
			want{window: true, code: 5100, name: NameWindowNotReady, reason: "END_AFTER_CURRENT_TSO", retryAfter: 1500 * time.Millisecond}},
		{"classic txn wait", scenario{Err: status.Error(codes.Internal, internalMsg("timeout waiting previous transactions finish for time-based read, txnIdWatermark=10 dbId=1 tableIds=[2]"))},
			want{window: true, code: 5101, name: NameVisibleWaitTimeout, reason: ReasonClassicVisibleWait}},
		{"classic visible versions", scenario{Err: status.Error(codes.Internal, internalMsg("timeout synchronizing visible versions for time-based read, dbId=1 tableId=2"))},
			want{window: true, code: 5101, name: NameVisibleWaitTimeout, reason: ReasonClassicVisibleWait}},
		{"classic journal replay", scenario{Err: status.Error(codes.Internal, internalMsg("timeout waiting follower journal replay for time-based read, maxJournalId=99"))},
			want{window: true, code: 5101, name: NameVisibleWaitTimeout, reason: ReasonClassicVisibleWait}},
		{"classic TSO not calibrated", scenario{Err: status.Error(codes.Internal, internalMsg("TSO timestamp is not calibrated, please check"))},
			want{window: true, code: 5101, name: NameVisibleWaitTimeout, reason: ReasonClassicVisibleWait}},
		{"expired", scenario{Err: status.Error(codes.Internal, internalMsg("Row binlog offset has expired according to binlog.ttl_seconds"))},
			want{expired: true}},
		{"plain SQL error", scenario{Err: status.Error(codes.Internal, internalMsg("errCode = 2, detailMessage = Unknown table 'x'"))},
			want{}},
		{"unavailable with foreign code", scenario{Err: status.Error(codes.Unavailable, "backend down"), Trailer: metadata.Pairs("doris-error-code", "1105")},
			want{}},
	}
	c := startCluster(t)
	cl := dialCluster(t, c)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sql := fmt.Sprintf("case %d", i)
			c.script(sql, tc.sc)
			err := cl.Query(testCtx(t), sql, func(arrow.RecordBatch) error { return nil })
			if err == nil {
				t.Fatal("Query succeeded, want an error")
			}
			if !strings.Contains(err.Error(), c.feAddr) {
				t.Errorf("error %q does not name the FE", err)
			}
			we, ok := AsWindowError(err)
			if ok != tc.want.window {
				t.Fatalf("AsWindowError ok = %v, want %v (err %v)", ok, tc.want.window, err)
			}
			if IsExpired(err) != tc.want.expired {
				t.Errorf("IsExpired = %v, want %v", !tc.want.expired, tc.want.expired)
			}
			if IsUnauthenticated(err) {
				t.Errorf("IsUnauthenticated = true for %v", err)
			}
			if !ok {
				return
			}
			if we.Code != tc.want.code || we.Name != tc.want.name || we.Reason != tc.want.reason || we.RetryAfter != tc.want.retryAfter {
				t.Errorf("got {%d %s %s %v}, want {%d %s %s %v}", we.Code, we.Name, we.Reason, we.RetryAfter,
					tc.want.code, tc.want.name, tc.want.reason, tc.want.retryAfter)
			}
			if we.Message == "" || strings.Contains(we.Message, "rpc error") {
				t.Errorf("Message = %q, want the server description", we.Message)
			}
			if code := status.Code(err); code != tc.sc.Err.(interface{ GRPCStatus() *status.Status }).GRPCStatus().Code() {
				t.Errorf("gRPC code lost through wrapping: %v", code)
			}
		})
	}
}

func TestAsWindowErrorFromPlainText(t *testing.T) {
	// Errors that never went through Query (e.g. a MySQL-protocol path) are
	// classified by their text.
	err := fmt.Errorf("poll: %w", errors.New("Error 5100 (HY000): "+notReadyMsg))
	we, ok := AsWindowError(err)
	if !ok || we.Code != 5100 || we.Reason != "END_AFTER_CURRENT_TSO" || we.RetryAfter != 1500*time.Millisecond {
		t.Fatalf("AsWindowError = %+v, %v", we, ok)
	}
	if !errors.Is(we, err) {
		t.Errorf("WindowError does not keep its cause")
	}
	if _, ok := AsWindowError(nil); ok {
		t.Error("AsWindowError(nil) reported a window error")
	}
	if _, ok := AsWindowError(errors.New("connection refused")); ok {
		t.Error("a connection error classified as a window error")
	}
	if IsExpired(nil) || IsUnauthenticated(nil) {
		t.Error("nil classified")
	}
}

func TestWindowErrorText(t *testing.T) {
	we := &WindowError{Code: 5100, Name: NameWindowNotReady, Reason: "WINDOW_NOT_READY", RetryAfter: 2 * time.Second, Message: "m"}
	want := "doris ERR_INCR_WINDOW_NOT_READY (5100) reason WINDOW_NOT_READY, retry after 2s: m"
	if we.Error() != want {
		t.Errorf("Error() = %q, want %q", we.Error(), want)
	}
}
