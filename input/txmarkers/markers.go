package txmarkers

import (
	"encoding/json"
	"strconv"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// Operation values of the markers: the `operation` metadata Redpanda
// Connect's postgres_cdc gives its own markers (include_transaction_markers).
const (
	OperationBegin  = "begin"
	OperationCommit = "commit"
)

// Metadata keys a marker carries, the names change messages use for the
// same facts (cdc-standard.md). A marker has no `table` or
// `database_schema`: one Doris transaction may change several tables.
const (
	metaOperation     = "operation"
	metaTSO           = "tso"
	metaCommitTS      = "commit_ts_ms"
	metaSourceTS      = "source_ts_ms"
	metaTransactionID = "transaction_id"
	metaPhase         = "doris_phase"
)

// Kind tells a marker from a change.
type Kind int8

const (
	Begin  Kind = -1 // before every change of its TSO
	None   Kind = 0  // not a marker
	Commit Kind = 1  // after every change of its TSO
)

// KindOf tells whether msg is a marker, and which, from its operation.
func KindOf(msg *service.Message) Kind {
	op, _ := msg.MetaGet(metaOperation)
	return KindOfOperation(op)
}

// KindOfOperation is KindOf for an operation value already read (a Kafka
// header, say).
func KindOfOperation(op string) Kind {
	switch op {
	case OperationBegin:
		return Begin
	case OperationCommit:
		return Commit
	}
	return None
}

// IsMarker reports whether msg is a begin or commit marker.
func IsMarker(msg *service.Message) bool { return KindOf(msg) != None }

// TableCount is how many messages a transaction delivered of one table.
type TableCount struct {
	Table      string `json:"table"` // db.table, as positions name it
	EventCount int64  `json:"event_count"`
}

// body is a marker's JSON body. A begin knows only its TSO: the input
// streams a transaction's rows as it reads them, so its tables and size
// are known only at its end.
type body struct {
	TransactionID string       `json:"transaction_id"`
	TSO           int64        `json:"tso"`
	CommitTsMs    int64        `json:"commit_ts_ms"`
	EventCount    *int64       `json:"event_count,omitempty"`
	Tables        []TableCount `json:"tables,omitempty"`
}

// NewBegin is the begin marker of the transaction committed at tso.
// phase is the doris_phase its changes carry ("" for the shared chain).
func NewBegin(tso int64, phase string) *service.Message {
	return newMarker(OperationBegin, phase, body{TransactionID: strconv.FormatInt(tso, 10), TSO: tso, CommitTsMs: doris.PhysicalMs(tso)})
}

// NewCommit is the commit marker of the transaction committed at tso,
// which delivered tables' messages (in delivery order).
func NewCommit(tso int64, phase string, tables []TableCount) *service.Message {
	var n int64
	for _, t := range tables {
		n += t.EventCount
	}
	return newMarker(OperationCommit, phase, body{TransactionID: strconv.FormatInt(tso, 10), TSO: tso, CommitTsMs: doris.PhysicalMs(tso), EventCount: &n, Tables: tables})
}

func newMarker(op, phase string, b body) *service.Message {
	raw, _ := json.Marshal(b) // plain fields: cannot fail
	msg := service.NewMessage(raw)
	msg.MetaSetMut(metaOperation, op)
	msg.MetaSetMut(metaTSO, b.TSO)
	msg.MetaSetMut(metaCommitTS, b.CommitTsMs)
	msg.MetaSetMut(metaSourceTS, b.CommitTsMs)
	msg.MetaSetMut(metaTransactionID, b.TransactionID)
	if phase != "" {
		msg.MetaSetMut(metaPhase, phase)
	}
	return msg
}
