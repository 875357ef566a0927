package storage

import "sync/atomic"

// Doris gives a transaction its commit TSO when it commits, and makes its
// rows visible only when the publish of its versions finishes, later. In
// between, a plain SELECT does not see the rows while @incr reads with an
// end past that TSO wait for the publish (doris-facts §10). The store
// normally publishes at commit; a PublishHold keeps a table's commits in
// that gap until it is released, so that tests can reproduce what a reader
// sees meanwhile.

// PublishHold holds the publish of every commit that writes one table.
type PublishHold struct {
	s       *Store
	t       *table
	queued  []heldCommit // in commit (TSO) order; guarded by s.mu
	waiting atomic.Int32 // @incr reads waiting for the queued commits
	scanned atomic.Bool  // a snapshot read the table while commits were held
}

// heldCommit is a committed transaction whose rows are not yet visible.
type heldCommit struct {
	tso   TSO
	order []*txnTable
}

// HoldPublish holds the publish of the commits that write db.name from now
// until Release. A commit that also writes other tables is held whole.
func (s *Store) HoldPublish(db, name string) (*PublishHold, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(db, name)
	if err != nil {
		return nil, err
	}
	if s.holds == nil {
		s.holds = map[*table]*PublishHold{}
	}
	if s.holds[t] != nil {
		return nil, errorf("the publish of %s.%s is already held", db, name)
	}
	h := &PublishHold{s: s, t: t}
	s.holds[t] = h
	return h, nil
}

// Held is how many commits wait for their publish.
func (h *PublishHold) Held() int {
	h.s.mu.RLock()
	defer h.s.mu.RUnlock()
	return len(h.queued)
}

// Waiting tells whether an @incr read is waiting for a held commit.
func (h *PublishHold) Waiting() bool { return h.waiting.Load() > 0 }

// Scanned tells whether a snapshot read the table while a commit was held,
// and so missed its rows.
func (h *PublishHold) Scanned() bool { return h.scanned.Load() }

// Release publishes the held commits in their commit order and ends the
// hold; waiting @incr reads go on.
func (h *PublishHold) Release() {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holds[h.t] != h {
		return
	}
	delete(s.holds, h.t)
	for _, c := range h.queued {
		publish(c.tso, c.order)
	}
	h.queued = nil
	s.signalTxnEnded()
}

// holdLocked queues a commit of order when it writes a held table, and
// says whether it did. Callers hold s.mu for writing.
func (s *Store) holdLocked(tso TSO, order []*txnTable) bool {
	for _, tt := range order {
		if h := s.holds[tt.t]; h != nil && len(tt.ops) > 0 {
			h.queued = append(h.queued, heldCommit{tso: tso, order: order})
			return true
		}
	}
	return false
}

// publish makes a commit's writes visible and appends its binlog records.
// Callers hold s.mu for writing.
func publish(tso TSO, order []*txnTable) {
	for _, tt := range order {
		for _, o := range tt.ops {
			applyOp(tt.t, tso.Value, o)
		}
		bumpVersions(tt.t, tt.ops, tso.PhysicalMs)
	}
}

// heldBefore tells whether t has a held commit whose TSO is below end (or
// any held commit when there is no end). Callers hold s.mu.
func (s *Store) heldBefore(t *table, req incrRequest) bool {
	h := s.holds[t]
	if h == nil {
		return false
	}
	for _, c := range h.queued {
		if !req.hasEnd || c.tso.PhysicalMs < req.endMs {
			return true
		}
	}
	return false
}

// noteScan marks a hold on t as scanned past. Callers hold s.mu.
func (s *Store) noteScan(t *table) {
	if h := s.holds[t]; h != nil && len(h.queued) > 0 {
		h.scanned.Store(true)
	}
}
