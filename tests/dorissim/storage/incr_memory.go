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

// ForceMemoryPressure makes the BE's memory GC cancel the next n @incr
// queries, as Doris does to the query using the most memory when the BE
// process passes its memory limit. Unlike a query over its own
// exec_mem_limit, the same query then succeeds once the pressure is gone.
func (s *Store) ForceMemoryPressure(n int) {
	s.mu.Lock()
	s.forcedPressure += n
	s.mu.Unlock()
}

// ClearForcedMemoryPressure drops forced cancellations not used yet.
func (s *Store) ClearForcedMemoryPressure() {
	s.mu.Lock()
	s.forcedPressure = 0
	s.mu.Unlock()
}

// takeMemoryPressure fails a query of records binlog records when a forced
// cancellation is pending, with the text of a Doris 2.1+ BE's full memory
// GC (MemTrackerLimiter::free_top_memory_query); the process figures are
// those of Doris's own documented example.
func (s *Store) takeMemoryPressure(records int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forcedPressure == 0 {
		return nil
	}
	s.forcedPressure--
	s.queries++
	return &Error{Code: CodeGeneric, Message: fmt.Sprintf(
		"(127.0.0.1)[MEM_LIMIT_EXCEEDED]Process memory not enough, cancel top memory used query: <Query#Id=%016x-%016x> consumption %s, "+
			"backend 127.0.0.1, process memory used 3.12 GB exceed limit 3.01 GB or sys available memory 191.25 GB less than low water mark 3.20 GB. "+
			"Execute again after enough memory, details see be.INFO.", 0x5e4d0000+s.queries, s.queries, printBytes(int64(records)*IncrRowMemBytes))}
}

// printBytes writes a size as Doris's PrettyPrinter::print_bytes does:
// two decimals and a binary unit.
func printBytes(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d.00 B", n)
	}
	return fmt.Sprintf("%.2f %s", v, units[u])
}
