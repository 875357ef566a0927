package flight

import (
	"errors"
	"testing"
)

func TestIsQueryLimit(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"get flight info statement failed, errCode = 2, detailMessage = (127.0.0.1)[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed", true},
		{"errCode = 2, detailMessage = Memory limit exceeded:<consuming_tracker=RuntimeState:instance:1>", true},
		{"errCode = 2, detailMessage = Memory exceed limit. New partitioned Aggregation in spill", true},
		{"ERROR 1105 (HY000): errCode = 2, detailMessage = Timeout", true},
		{"errCode = 2, detailMessage = (10.0.0.1)[TIMEOUT]query is timeout", true},
		{"errCode = 2, detailMessage = Unknown table 'orders'", false},
		{"rpc error: code = Unavailable desc = connection refused", false},
		{"Row binlog offset has expired according to binlog.ttl_seconds", false},
	} {
		if got := IsQueryLimit(errors.New(tc.msg)); got != tc.want {
			t.Errorf("IsQueryLimit(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
	if IsQueryLimit(nil) {
		t.Error("IsQueryLimit(nil) = true")
	}
}
