package faults

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestFailedReadOfATableListedPastRow1000 fails window reads of a followed
// table that 1,000 others push past row 1,000 of its database's listing
// (the most the FE statement API returns by default): the check after the
// failure finds it still there, so it stays and loses nothing. Discovery is
// left out (one hour apart), so only that check can drop it.
func TestFailedReadOfATableListedPastRow1000(t *testing.T) {
	f := startLatest(t, "zlast", "table_discovery_interval: 1h")
	for i := range 1000 {
		harness.CreateTable(t, f.srv, db, fmt.Sprintf("t%04d", i), harness.TableOpts{Buckets: 1, NoBinlog: true})
	}
	f.steps(t, 10)
	f.srv.SetFaults(dorissim.Faults{FailGetFlightInfo: 3})
	f.steps(t, 10)
	f.assertNoLoss(t, 60*time.Second)
	assertWarned(t, f.logs, windowIncident, 3)
	if drops := f.logs.Lines(slog.LevelWarn, "was dropped"); len(drops) != 0 {
		t.Fatalf("the table was taken for dropped: %v", drops)
	}
}
