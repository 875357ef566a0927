// Package session holds the statement interfaces that the simulator's
// protocol servers (FE HTTP, Flight SQL) run SQL through, so that one engine
// adapter serves them all.
package session

import (
	"context"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Result is a streaming statement result.
type Result interface {
	Columns() []storage.Column
	Next() ([]any, error)
	Close() error
}

// Session runs statements with per-session variables (time_zone, ...).
type Session interface {
	Query(ctx context.Context, sql string) (Result, error)
	Close()
}
