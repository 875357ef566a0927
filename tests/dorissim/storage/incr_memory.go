package storage

import "fmt"

// IncrRowMemBytes is the simulator's model of what one binlog record of a
// window costs the BE while it reads an @incr query: the window's records
// are scanned and sorted by (TSO, LSN) before the result sink sends them,
// so a window of n records needs about n * IncrRowMemBytes of the query's
// exec_mem_limit. The figure is a model, not Doris's accounting; what it
// keeps from Doris is that a window too large for exec_mem_limit fails as
// a whole, with MEM_LIMIT_EXCEEDED, and that a smaller window of the same
// table then succeeds.
const IncrRowMemBytes = 1024

// checkIncrMemory fails a window of records binlog records that does not
// fit limit bytes (0: no limit), with the text Doris 2.1+ BEs send.
func checkIncrMemory(records int, limit int64) error {
	need := int64(records) * IncrRowMemBytes
	if limit <= 0 || need <= limit {
		return nil
	}
	return &Error{Code: CodeGeneric, Message: fmt.Sprintf(
		"[MEM_LIMIT_EXCEEDED]Allocator mem tracker check failed, [MEM_LIMIT_EXCEEDED]failed alloc size %d bytes, "+
			"memory tracker limit exceeded, tracker label:Query, type:query, limit %d bytes, peak used %d bytes. "+
			"If query, can change the limit by `set exec_mem_limit=xxx`", IncrRowMemBytes, limit, need)}
}
