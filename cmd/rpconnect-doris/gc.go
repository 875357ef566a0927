package main

import (
	"os"
	"runtime/debug"
)

// tuneGC trades some memory for CPU unless the user set GOGC or GOMEMLIMIT.
// A change stream allocates one short-lived message per row, and with Go's
// default pacing the collector took about a third of the CPU of a binlog
// backlog (make bench). The live heap is bounded by checkpoint_limit and
// batch_size, so a higher GC target with a soft memory limit keeps peak RSS
// bounded while the collector runs far less often.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
}
