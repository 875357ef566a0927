// Package feapi implements the simulator's FE HTTP API (doris-facts §1): TSO,
// statement execution, table schema, query plans, stream load and the
// simulator's fault endpoint.
package feapi

import (
	"context"

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
	Load(ctx context.Context, db, table string, req storage.LoadRequest) (storage.LoadResult, error)
}

// Hooks connects the API to the simulator's fault injection.
type Hooks interface {
	// TakeTSOError reports whether this /api/tso call must fail.
	TakeTSOError() bool
	// ApplyFaults adds the JSON-encoded faults to the current ones.
	ApplyFaults(body []byte) error
	ClearFaults()
}
