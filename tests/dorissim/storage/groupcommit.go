package storage

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"time"
)

// Group commit modes (the group_commit header).
const (
	GroupCommitOff   = "off_mode"
	GroupCommitSync  = "sync_mode"
	GroupCommitAsync = "async_mode"
)

// Table properties that bound a group commit batch, with Doris's defaults.
const (
	propGroupCommitInterval   = "group_commit_interval_ms"
	propGroupCommitBytes      = "group_commit_data_bytes"
	defaultGroupCommitMs      = 10000
	defaultGroupCommitBytes   = 64 << 20
	groupCommitLabelPrefix    = "group_commit_"
	groupCommitLabelHexDigits = 16
)

// GroupCommitResult is what a load that joined a group commit learns: the
// internal load's txn and label, which other loads of the batch share.
type GroupCommitResult struct {
	TxnID            int64
	Label            string
	Loaded, Filtered int64
	Rejected         []string // error-log lines of the filtered rows (LoadResult.Rejected)
}

// groupBatch is a table's open group commit: one internal load txn that
// collects loads until its interval passes or its size is reached, then
// commits them all with one TSO.
type groupBatch struct {
	s     *Store
	key   string
	lt    *LoadTxn
	label string

	mu     sync.Mutex // guards staging into lt.tx and the fields below
	closed bool
	rows   int64
	bytes  int64
	done   chan struct{}
	err    error
}

// GroupCommitLoad adds a load to the table's group commit batch. In
// sync_mode it returns once the batch is committed (and visible); in
// async_mode as soon as its rows are staged, before they are visible.
func (s *Store) GroupCommitLoad(db, table string, req LoadRequest, mode string) (GroupCommitResult, error) {
	interval, limit, err := s.groupCommitProps(db, table)
	if err != nil {
		return GroupCommitResult{}, err
	}
	size := loadSize(req)
	for {
		b, err := s.groupBatchFor(db, table, interval)
		if err != nil {
			return GroupCommitResult{}, err
		}
		res := GroupCommitResult{TxnID: b.lt.tx.id, Label: b.label, Loaded: int64(len(req.Rows))}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			continue
		}
		st, err := s.stageLoad(b.lt.tx, db, table, req)
		res.Loaded -= st.filtered
		res.Filtered, res.Rejected = st.filtered, st.rejected
		if err == nil {
			b.rows += res.Loaded
			b.bytes += size
		}
		full := b.bytes >= limit
		b.mu.Unlock()
		if err != nil {
			res.Loaded = 0
			return res, err
		}
		if full {
			b.flush()
		}
		if mode == GroupCommitSync {
			<-b.done
			if b.err != nil {
				return GroupCommitResult{TxnID: res.TxnID, Label: res.Label}, b.err
			}
		}
		return res, nil
	}
}

func (s *Store) groupCommitProps(db, table string) (time.Duration, int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return 0, 0, err
	}
	ms, bytes := int64(defaultGroupCommitMs), int64(defaultGroupCommitBytes)
	if v, ok := t.def.Properties[propGroupCommitInterval]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			ms = n
		}
	}
	if v, ok := t.def.Properties[propGroupCommitBytes]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			bytes = n
		}
	}
	return time.Duration(ms) * time.Millisecond, bytes, nil
}

// groupBatchFor returns the table's open batch, starting one (and its
// commit timer) when there is none.
func (s *Store) groupBatchFor(db, table string, interval time.Duration) (*groupBatch, error) {
	key := db + "\x00" + table
	s.groupMu.Lock()
	defer s.groupMu.Unlock()
	if b, ok := s.groups[key]; ok {
		return b, nil
	}
	label := newGroupCommitLabel()
	lt, err := s.BeginLoad(db, label)
	if err != nil {
		return nil, err
	}
	b := &groupBatch{s: s, key: key, lt: lt, label: label, done: make(chan struct{})}
	s.groups[key] = b
	time.AfterFunc(interval, b.flush)
	return b, nil
}

// flush closes the batch to new loads and commits what it holds.
func (b *groupBatch) flush() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	rows := b.rows
	b.mu.Unlock()
	b.s.groupMu.Lock()
	if b.s.groups[b.key] == b {
		delete(b.s.groups, b.key)
	}
	b.s.groupMu.Unlock()
	_, b.err = b.lt.complete(LoadResult{TxnID: b.lt.tx.id, Loaded: rows}, false, nil)
	close(b.done)
}

func loadSize(req LoadRequest) int64 {
	var n int64
	for _, row := range req.Rows {
		for _, v := range row {
			if v != nil {
				n += int64(len(*v))
			}
			n++
		}
	}
	return n
}

// newGroupCommitLabel is Doris's group commit label: group_commit_ and the
// internal load id's two halves in hex.
func newGroupCommitLabel() string {
	var b [groupCommitLabelHexDigits]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return groupCommitLabelPrefix + h[:groupCommitLabelHexDigits] + "_" + h[groupCommitLabelHexDigits:]
}
