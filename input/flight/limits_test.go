package flight

import (
	"errors"
	"testing"
)

// TestClassifyLimit holds Doris's resource refusals, as Doris words them,
// to their kind. The process memory texts also say "exceed limit" and
// carry MEM_LIMIT_EXCEEDED, so they must not read as the query's own.
func TestClassifyLimit(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want Limit
	}{
		// The query's own exec_mem_limit.
		{"errCode = 2, detailMessage = (10.16.10.8)[MEM_LIMIT_EXCEEDED]PreCatch error code:11, [E11] Allocator mem tracker check failed, " +
			"[MEM_LIMIT_EXCEEDED]failed alloc size 1.03 MB, memory tracker limit exceeded, tracker label:Query#Id=f78208b15e064527-a84c5c0b04c04fcf, " +
			"type:query, limit 100.00 MB, peak used 99.29 MB, current used 99.25 MB. backend 10.16.10.8, process memory used 2.65 GB. " +
			"exec node:<execute:<ExecNode:VHASH_JOIN_NODE (id=4)>>, can `set exec_mem_limit=8G` to change limit, details see be.INFO.", QueryMemory},
		{"errCode = 2, detailMessage = Memory limit exceeded:<consuming tracker:<Query#Id=1>, failed alloc size 1.00 MB, exceeded tracker:<Query#Id=1>, " +
			"limit 2.00 GB, peak used 2.00 GB, current used 2.00 GB>", QueryMemory},
		{"errCode = 2, detailMessage = (be1)[MEM_LIMIT_EXCEEDED]query reserve memory failed, but could not find  memory that could release or spill to disk", QueryMemory},
		// The process, or its workload group, is short of memory.
		{"errCode = 2, detailMessage = (10.16.10.8)[MEM_LIMIT_EXCEEDED]Process memory not enough, cancel top memory used query: " +
			"<Query#Id=e862471398b14e71-9361a1ab8153cb29> consumption 866.97 MB, backend 10.16.10.8, process memory used 3.12 GB exceed limit 3.01 GB " +
			"or sys available memory 191.25 GB less than low water mark 3.20 GB. Execute again after enough memory, details see be.INFO.", MemoryPressure},
		{"errCode = 2, detailMessage = (10.16.10.8)[MEM_LIMIT_EXCEEDED]Process memory not enough, cancel top memory overcommit query: " +
			"<Query#Id=e862471398b14e71-9361a1ab8153cb29> consumption 866.97 MB, backend 10.16.10.8, process memory used 2.12 GB exceed soft limit 2.71 GB " +
			"or sys available memory 3.25 GB less than warning water mark 6.40 GB. Execute again after enough memory, details see be.INFO.", MemoryPressure},
		{"errCode = 2, detailMessage = (10.8.6.31)[CANCELLED]Process has no memory available, cancel top memory used query: query memory tracker " +
			"<Query#Id=9e4d70bf37ce40dd-a9db860227aabe6f> consumption 10.84 GB, backend 10.8.6.31 process memory used 25.75 GB exceed limit 24.48 GB " +
			"or sys available memory 3.61 GB less than low water mark 1.60 GB. Execute again after enough memory, details see be.INFO.", MemoryPressure},
		{"errCode = 2, detailMessage = (10.8.6.25)[CANCELLED]Allocator sys memory check failed: Cannot alloc:134217728, consuming tracker:" +
			"<Query#Id=dbc28f531df44269-a08455b0b412adc3>, peak used 11064400550, current used 11064400550, exec node:<>, process memory used 25.55 GB " +
			"exceed limit 24.48 GB or sys available memory 3.81 GB less than low water mark 1.60 GB.", MemoryPressure},
		{"errCode = 2, detailMessage = Memory limit exceeded:<consuming tracker:<Query#Id=3c88608cf35c461d-95fe88969aa6fc30>, process memory used 2.68 GB " +
			"exceed limit 2.47 GB or sys mem available 50.95 GB less than low water mark 3.20 GB, failed alloc size 2.00 MB>", MemoryPressure},
		{"errCode = 2, detailMessage = (be1)[MEM_LIMIT_EXCEEDED]The query(1-2) reserved memory failed because workload group limit exceeded, " +
			"and there is no cache now. And could not find task to spill. Maybe you should set the workload group's limit to a lower value.", MemoryPressure},
		{"errCode = 2, detailMessage = (be1)[MEM_LIMIT_EXCEEDED]The query(1-2) reserved memory failed because process limit exceeded, " +
			"and there is no cache now.", MemoryPressure},
		// Memory refusals that do not say whose limit.
		{"get flight info statement failed, errCode = 2, detailMessage = (127.0.0.1)[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed", QueryMemory},
		{"get flight info statement failed, errCode = 2, detailMessage = (127.0.0.1)[MEM_LIMIT_EXCEEDED]failed alloc size 1 MB", Memory},
		{"errCode = 2, detailMessage = Memory limit exceeded:<consuming_tracker=RuntimeState:instance:1>", Memory},
		{"errCode = 2, detailMessage = Memory exceed limit. New partitioned Aggregation in spill", Memory},
		// query_timeout.
		{"ERROR 1105 (HY000): errCode = 2, detailMessage = Timeout", Timeout},
		{"errCode = 2, detailMessage = (10.0.0.1)[TIMEOUT]query is timeout", Timeout},
		// Not a limit.
		{"errCode = 2, detailMessage = Unknown table 'orders'", NoLimit},
		{"rpc error: code = Unavailable desc = connection refused", NoLimit},
		{"Row binlog offset has expired according to binlog.ttl_seconds", NoLimit},
	} {
		if got := ClassifyLimit(errors.New(tc.msg)); got != tc.want {
			t.Errorf("ClassifyLimit(%.90q...) = %v, want %v", tc.msg, got, tc.want)
		}
	}
	if ClassifyLimit(nil) != NoLimit {
		t.Error("ClassifyLimit(nil) is a limit")
	}
}
