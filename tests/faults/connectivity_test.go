package faults

import (
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

// timeIncident matches every warn line about reading the current Doris time,
// from the input's loop and from the FE client's retries.
const timeIncident = `(?i)current Doris time|Doris current timestamp`

// TestTSOErrors answers /api/tso with 500 ten times in a row.
func TestTSOErrors(t *testing.T) {
	f := startLatest(t, "tso_errors")
	f.steps(t, 20)
	f.srv.SetFaults(dorissim.Faults{TSOErrors: 10})
	f.steps(t, 20)
	waitLogged(t, f.logs, 0, `current Doris time works again`, 60*time.Second)
	f.assertNoLoss(t, 60*time.Second)
	assertWarned(t, f.logs, timeIncident, 3)
}

// TestFERefusesHTTP closes the FE HTTP port for 10s, as an FE restart does.
func TestFERefusesHTTP(t *testing.T) {
	f := startLatest(t, "refuse_http")
	f.steps(t, 20)
	f.srv.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: 10 * time.Second})
	f.steps(t, 20)
	waitLogged(t, f.logs, 0, timeIncident, 30*time.Second)
	time.Sleep(10 * time.Second) // let the refusal run its course
	f.steps(t, 10)
	f.assertNoLoss(t, 90*time.Second)
	assertWarned(t, f.logs, timeIncident, 3)
}

// TestFERefusesFlight closes the FE Arrow Flight SQL port (and its open
// sessions) for 10s.
func TestFERefusesFlight(t *testing.T) {
	f := startLatest(t, "refuse_flight")
	f.steps(t, 20)
	f.srv.SetFaults(dorissim.Faults{Refuse: "flight", RefuseFor: 10 * time.Second})
	f.steps(t, 20)
	waitLogged(t, f.logs, 0, windowIncident, 30*time.Second)
	time.Sleep(10 * time.Second)
	f.steps(t, 10)
	f.assertNoLoss(t, 90*time.Second)
	assertWarned(t, f.logs, windowIncident, 3)
}

// TestLatencySpikes slows every FE HTTP and MySQL answer by 300ms while the
// workload runs; nothing is lost and nothing is logged as a failure.
func TestLatencySpikes(t *testing.T) {
	f := startLatest(t, "latency")
	f.steps(t, 10)
	f.srv.SetFaults(dorissim.Faults{Latency: 300 * time.Millisecond})
	f.steps(t, 30)
	time.Sleep(3 * time.Second)
	f.srv.ClearFaults()
	f.steps(t, 10)
	f.assertNoLoss(t, 60*time.Second)
	if lines := f.logs.Lines(0, "failed"); len(lines) != 0 {
		t.Fatalf("latency was reported as failures: %v", lines)
	}
}
