package flight

import (
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// Close ends the FE session: Doris would otherwise count it against the
// user's max_user_connections until wait_timeout, hours later.
func TestCloseEndsTheSession(t *testing.T) {
	s, err := dorissim.Start(testCtx(t), dorissim.Config{User: testUser, Password: testPass})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	before := s.Stats().FlightSessionsOpen
	c, err := Dial(testCtx(t), Config{Addr: s.FlightAddr(), Username: testUser, Password: testPass, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Stats().FlightSessionsOpen; n != before+1 {
		t.Fatalf("%d Flight sessions open after a handshake, want %d", n, before+1)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := s.Stats().FlightSessionsOpen; n != before {
		t.Fatalf("%d Flight sessions open after Close, want %d: the session keeps its slot", n, before)
	}
}
