package storage

import (
	"fmt"
	"regexp"
	"time"
)

// TxnStatus is a load transaction's state, spelled as Doris's
// TransactionStatus prints it (get_load_state answers these).
type TxnStatus string

// Load transaction states.
const (
	TxnUnknown      TxnStatus = "UNKNOWN"
	TxnPrepare      TxnStatus = "PREPARE"
	TxnPrecommitted TxnStatus = "PRECOMMITTED"
	TxnCommitted    TxnStatus = "COMMITTED"
	TxnVisible      TxnStatus = "VISIBLE"
	TxnAborted      TxnStatus = "ABORTED"
)

// Defaults of the FE configs that bound how long load state is kept.
const (
	// DefaultLabelKeep is streaming_label_keep_max_second (43200 s).
	DefaultLabelKeep = 12 * time.Hour
	// DefaultPrecommitTimeout is stream_load_default_precommit_timeout_second
	// (3600 s): a pre-committed txn left alone that long is aborted.
	DefaultPrecommitTimeout = time.Hour
	labelSweepEvery         = time.Minute
)

// labelRegex is FeNameFormat's LABEL_REGEX; the FE checks labels against it.
var labelRegex = regexp.MustCompile(`^[-_A-Za-z0-9:]{1,128}$`)

// loadEntry is one load transaction as the FE's transaction manager keeps
// it: found by label (latest txn of the label) and by txn id. Guarded by
// Store.mu.
type loadEntry struct {
	id         int64
	db, label  string
	status     TxnStatus
	reason     string // abort reason
	finishedMs int64  // clock ms when it became VISIBLE or ABORTED
	deadlineMs int64  // PRECOMMITTED: aborted by the txn manager after this
	tx         *Txn
	result     LoadResult
}

// LabelUsedError is Doris's LabelAlreadyUsedException: the label belongs to
// a transaction that is not aborted. JobStatus is what the BE reports as
// ExistingJobStatus: RUNNING (PREPARE), PRECOMMITTED, or FINISHED
// (COMMITTED or VISIBLE).
type LabelUsedError struct {
	Label     string
	TxnID     int64
	JobStatus string
}

func (e *LabelUsedError) Error() string {
	return fmt.Sprintf("Label [%s] has already been used, relate to txn [%d]", e.Label, e.TxnID)
}

// Unwrap lets callers match the generic *Error named LABEL_ALREADY_EXISTS.
func (e *LabelUsedError) Unwrap() error {
	return &Error{Code: CodeGeneric, Name: "LABEL_ALREADY_EXISTS", Message: e.Error()}
}

func jobStatus(st TxnStatus) string {
	switch st {
	case TxnPrecommitted:
		return "PRECOMMITTED"
	case TxnCommitted, TxnVisible:
		return "FINISHED"
	}
	return "RUNNING"
}

// CheckLabel validates a label as FeNameFormat.checkLabel does.
func CheckLabel(label string) error {
	if !labelRegex.MatchString(label) {
		return errorf("Label format error. regex: %s, label: %s", labelRegex.String(), label)
	}
	return nil
}

// LabelState answers get_load_state: the status of the label's latest
// transaction, UNKNOWN when there is none (or it has expired).
func (s *Store) LabelState(db, label string) (TxnStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.dbs[db]
	if !ok {
		return "", errUnknownDB(db)
	}
	e := s.liveEntryLocked(d, label)
	if e == nil {
		return TxnUnknown, nil
	}
	return e.status, nil
}

// liveEntryLocked returns the label's entry after applying the precommit
// timeout and the keep time; nil when the label is free of history.
func (s *Store) liveEntryLocked(d *database, label string) *loadEntry {
	e, ok := d.labels[label]
	if !ok {
		return nil
	}
	now := s.nowMs()
	s.expirePrecommitLocked(e, now)
	if e.finishedMs > 0 && now-e.finishedMs > s.opts.LabelKeep.Milliseconds() {
		s.forgetLocked(d, e)
		return nil
	}
	return e
}

// expirePrecommitLocked aborts a pre-committed txn whose timeout passed, as
// Doris's transaction manager does.
func (s *Store) expirePrecommitLocked(e *loadEntry, now int64) {
	if e.status == TxnPrecommitted && e.deadlineMs > 0 && now > e.deadlineMs {
		s.abortEntryLocked(e, "timeout by txn manager")
	}
}

func (s *Store) abortEntryLocked(e *loadEntry, reason string) {
	if e.tx != nil && !e.tx.done {
		e.tx.finishLocked()
	}
	e.tx = nil
	e.status, e.reason, e.finishedMs = TxnAborted, reason, s.nowMs()
}

func (s *Store) forgetLocked(d *database, e *loadEntry) {
	if d.labels[e.label] == e {
		delete(d.labels, e.label)
	}
	delete(s.loads, e.id)
}

// reserveLabelLocked registers a new PREPARE txn under label, failing with
// LabelUsedError while an earlier txn of the label is not aborted.
func (s *Store) reserveLabelLocked(d *database, label string, tx *Txn) (*loadEntry, error) {
	s.sweepLabelsLocked(d)
	if prev := s.liveEntryLocked(d, label); prev != nil && prev.status != TxnAborted {
		return nil, &LabelUsedError{Label: label, TxnID: prev.id, JobStatus: jobStatus(prev.status)}
	}
	e := &loadEntry{id: tx.id, db: d.name, label: label, status: TxnPrepare, tx: tx}
	d.labels[label] = e
	s.loads[e.id] = e
	return e, nil
}

// sweepLabelsLocked drops expired history now and then, so a long-running
// simulator does not keep every label forever.
func (s *Store) sweepLabelsLocked(d *database) {
	now := s.nowMs()
	if now-d.lastSweepMs < labelSweepEvery.Milliseconds() {
		return
	}
	d.lastSweepMs = now
	for label := range d.labels {
		s.liveEntryLocked(d, label)
	}
	// Older txns of reused labels are reachable only by id.
	keep := s.opts.LabelKeep.Milliseconds()
	for id, e := range s.loads {
		if e.db == d.name && e.finishedMs > 0 && now-e.finishedMs > keep {
			delete(s.loads, id)
		}
	}
}

func (s *Store) nowMs() int64 { return s.opts.Clock().UnixMilli() }
