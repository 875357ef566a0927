package storage

import "strings"

// 2PC operations of _stream_load_2pc.
const (
	TxnOpCommit = "commit"
	TxnOpAbort  = "abort"
)

// Txn2PC commits or aborts a pre-committed stream load, found by txnID or,
// when txnID is 0, by label, with the FE's checks and texts
// (FrontendServiceImpl.loadTxn2PCImpl, DatabaseTransactionMgr). A commit
// applies every row at once under one new TSO.
func (s *Store) Txn2PC(db string, txnID int64, label, operation string) (LoadResult, error) {
	operation = strings.ToLower(strings.TrimSpace(operation))
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.dbs[db]
	if !ok {
		return LoadResult{}, errorf("unknown database, database=%s", db)
	}
	e, err := s.find2PCLocked(d, txnID, label, operation)
	if err != nil {
		return LoadResult{}, err
	}
	s.expirePrecommitLocked(e, s.nowMs())
	switch operation {
	case TxnOpCommit:
		return s.commit2PCLocked(e)
	case TxnOpAbort:
		return e.result, s.abort2PCLocked(e)
	}
	return LoadResult{}, errorf("transaction operation should be 'commit' or 'abort'")
}

func (s *Store) find2PCLocked(d *database, txnID int64, label, operation string) (*loadEntry, error) {
	if txnID == 0 {
		e := s.liveEntryLocked(d, label)
		if e == nil {
			return nil, errorf("transaction not found, label=%s", label)
		}
		if e.status != TxnPrecommitted && (operation != TxnOpAbort || e.status != TxnPrepare) {
			return nil, errorf("running transaction not found, label=%s", label)
		}
		return e, nil
	}
	e, ok := s.loads[txnID]
	if !ok || e.db != d.name {
		return nil, errorf("transaction [%d] not found", txnID)
	}
	return e, nil
}

func (s *Store) commit2PCLocked(e *loadEntry) (LoadResult, error) {
	switch e.status {
	case TxnAborted:
		return LoadResult{}, errorf("transaction [%d] is already aborted. abort reason: %s", e.id, e.reason)
	case TxnVisible:
		return LoadResult{}, errorf("transaction [%d] is already visible, not pre-committed.", e.id)
	case TxnCommitted:
		return LoadResult{}, errorf("transaction [%d] is already committed, not pre-committed.", e.id)
	case TxnPrepare:
		return LoadResult{}, errorf("transaction [%d] is prepare, not pre-committed.", e.id)
	}
	tso, err := e.tx.commitLocked()
	if err != nil {
		s.abortEntryLocked(e, err.Error())
		return LoadResult{}, err
	}
	e.result.TSO = tso
	e.status, e.finishedMs, e.tx = TxnVisible, s.nowMs(), nil
	return e.result, nil
}

func (s *Store) abort2PCLocked(e *loadEntry) error {
	switch e.status {
	case TxnAborted:
		return errorf("transaction [%d] is already aborted, abort reason: %s", e.id, e.reason)
	case TxnCommitted, TxnVisible:
		return errorf("transaction [%d] is already %s, could not abort.", e.id, e.status)
	}
	s.abortEntryLocked(e, "User Abort")
	return nil
}
