package faults

import (
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// windowIncident is the input's warn line for a failed window read.
const windowIncident = `Reading binlog window .* failed`

// TestFlightStreamCutMidWindow commits 500 rows in one transaction and cuts
// the DoGet stream of their window after 100 rows: the input re-reads the
// same window, skips the rows it already emitted, and loses nothing.
func TestFlightStreamCutMidWindow(t *testing.T) {
	f := startLatest(t, "cut_window")
	f.steps(t, 10)
	f.insert(t, 500)
	f.srv.SetFaults(dorissim.Faults{CutDoGetAfterRows: 100})
	f.steps(t, 10)
	f.assertNoLoss(t, 60*time.Second)
	f.srv.ClearFaults()
	assertWarned(t, f.logs, windowIncident, 3)
}

// TestGetFlightInfoFailures fails the next GetFlightInfo calls on the FE,
// which hits the window read and the session set-up on every reconnect.
func TestGetFlightInfoFailures(t *testing.T) {
	f := startLatest(t, "flight_info")
	f.steps(t, 20)
	f.srv.SetFaults(dorissim.Faults{FailGetFlightInfo: 3})
	f.steps(t, 20)
	f.assertNoLoss(t, 60*time.Second)
	assertWarned(t, f.logs, windowIncident, 3)
}
