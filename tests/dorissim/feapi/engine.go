// Package feapi implements the simulator's FE HTTP API (doris-facts §1): TSO,
// statement execution, table schema, query plans, stream load and the
// simulator's fault endpoint.
package feapi

import (
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/session"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Result and Session are the simulator's shared statement interfaces.
type (
	Result  = session.Result
	Session = session.Session
)

// Backend is what the FE HTTP API needs from the simulator.
type Backend interface {
	Authenticate(user, password string) bool
	NewSession(user string) Session
	CurrentTSO() storage.TSO
	Table(db, table string) (*storage.TableInfo, error)
	// PlanTablets lists the tablets of the partitions a plan statement's
	// WHERE clause can match (storage.Store.PlanTablets).
	PlanTablets(db, table, sql string) ([]int64, error)
	// BeginLoad begins a stream load's txn and reserves its label.
	BeginLoad(db, label string) (LoadTxn, error)
	// Txn2PC commits or aborts a pre-committed load by txn id (or label when 0).
	Txn2PC(db string, txnID int64, label, operation string) (storage.LoadResult, error)
	LabelState(db, label string) (storage.TxnStatus, error)
	// GroupCommitLoad adds a load to the table's group commit batch.
	GroupCommitLoad(db, table string, req storage.LoadRequest, mode string) (storage.GroupCommitResult, error)
}

// LoadTxn is one stream load's transaction (storage.LoadTxn).
type LoadTxn interface {
	TxnID() int64
	Run(table string, req storage.LoadRequest) (storage.LoadResult, error)
	Abort(reason string)
}

// Hooks connects the API to the simulator's fault injection.
type Hooks interface {
	// TakeTSOError reports whether this /api/tso call must fail.
	TakeTSOError() bool
	// ApplyFaults adds the JSON-encoded faults to the current ones.
	ApplyFaults(body []byte) error
	ClearFaults()
	// TakeLoadFault consumes one pending stream load fault of kind (a
	// LoadFault* constant) and reports whether there was one.
	TakeLoadFault(kind string) bool
}

// Stream load faults.
const (
	LoadFaultHTTPError      = "http_error"      // answer HTTP 500, load nothing
	LoadFaultLostAnswer     = "lost_answer"     // load, then drop the connection unanswered
	LoadFaultPublishTimeout = "publish_timeout" // load, answer "Publish Timeout"
)
