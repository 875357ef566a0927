package storage

import (
	"sync"
	"time"
)

// TSO is a Doris timestamp-oracle value: Value = PhysicalMs<<18 | Logical.
type TSO struct {
	Value      int64
	PhysicalMs int64
	Logical    int64
}

const tsoLogicalBits = 18

func makeTSO(physMs, logical int64) TSO {
	return TSO{Value: physMs<<tsoLogicalBits | logical, PhysicalMs: physMs, Logical: logical}
}

// TSOFromValue splits a TSO value into its parts.
func TSOFromValue(v int64) TSO {
	return makeTSO(v>>tsoLogicalBits, v&(1<<tsoLogicalBits-1))
}

// oracle hands out commit TSOs. Allocation starts each new millisecond at
// logical 1 so a commit is strictly above any CurrentTSO read of that ms.
type oracle struct {
	clock     func() time.Time
	mu        sync.Mutex
	last      TSO // last allocated (committed) TSO
	allocated bool
}

func (o *oracle) clockMs() int64 { return o.clock().UnixMilli() }

// current never allocates and is never behind the clock.
func (o *oracle) current() TSO {
	now := o.clockMs()
	o.mu.Lock()
	defer o.mu.Unlock()
	if now > o.last.PhysicalMs {
		return makeTSO(now, 0)
	}
	return o.last
}

// committed returns the last allocated TSO (zero before the first commit).
func (o *oracle) committed() TSO {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}

func (o *oracle) allocate() TSO {
	now := o.clockMs()
	o.mu.Lock()
	defer o.mu.Unlock()
	if now > o.last.PhysicalMs {
		o.last = makeTSO(now, 1)
	} else if o.last.Logical+1 >= 1<<tsoLogicalBits {
		// Logical space of this ms exhausted: borrow the next millisecond.
		o.last = makeTSO(o.last.PhysicalMs+1, 1)
	} else {
		o.last = makeTSO(o.last.PhysicalMs, o.last.Logical+1)
	}
	o.allocated = true
	return o.last
}
