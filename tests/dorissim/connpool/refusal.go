package connpool

import "fmt"

// LimitError is a refused registration: the limits the connection was held
// to and the counts it was refused at.
type LimitError struct {
	Protocol Protocol
	Total    int // qe_max_connection
	User     int // the user's max_user_connections
	// Current is the FE-wide count the registration was refused at, not
	// the user's: ConnectPoolMgr.registerConnection returns
	// numberConnection after undoing its own increments.
	Current int
	// FlightQuota and FlightCurrent are the Flight share and the Flight
	// sessions open at the refusal.
	FlightQuota, FlightCurrent int
}

// Error is Doris's text, ConnectPoolMgr.limitReachedMessage: the Flight
// share is named only to a Flight session, and only when it is below the
// pool's limit, since only then can it be the limit that was reached
// (ConnectPoolMgrTest.testTheRefusalReadsTheSameForEveryProtocol,
// FlightSessionsInConnectPoolTest).
func (e *LimitError) Error() string {
	msg := fmt.Sprintf("Reach limit of connections. Total: %d, User: %d, Current: %d", e.Total, e.User, e.Current)
	if e.Protocol == Flight && e.FlightQuota < e.Total {
		msg += fmt.Sprintf(", Arrow Flight SQL: %d (current: %d)", e.FlightQuota, e.FlightCurrent)
	}
	return msg
}
