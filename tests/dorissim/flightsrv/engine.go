// Package flightsrv implements the simulator's Arrow Flight SQL servers: the FE
// (handshake, bearer tokens, GetFlightInfo) and the BE (DoGet of tickets).
package flightsrv

import (
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/session"
)

// Result and Session are the simulator's shared statement interfaces.
type (
	Result  = session.Result
	Session = session.Session
)

// Engine authenticates users and opens sessions.
type Engine interface {
	Authenticate(user, password string) bool
	NewSession(user string) Session
}

// Hooks lets the simulator inject faults into Flight calls.
type Hooks interface {
	Latency() time.Duration
	TakeFailGetFlightInfo() bool
	TakeFailDoGet() bool
	// TakeCutDoGet reports whether the next DoGet must be cut after n rows.
	TakeCutDoGet() (n int64, ok bool)
	// RearmCutDoGet puts back a cut that a row-less result did not use.
	RearmCutDoGet(n int64)
}

// NopHooks injects nothing.
type NopHooks struct{}

func (NopHooks) Latency() time.Duration      { return 0 }
func (NopHooks) TakeFailGetFlightInfo() bool { return false }
func (NopHooks) TakeFailDoGet() bool         { return false }
func (NopHooks) TakeCutDoGet() (int64, bool) { return 0, false }

// RearmCutDoGet does nothing.
func (NopHooks) RearmCutDoGet(int64) {}
