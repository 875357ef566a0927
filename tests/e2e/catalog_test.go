package e2e

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestIncludeFollowsTablesPastTheStatementLimit follows a database that
// grows past the 1,000 rows the FE statement API returns: every table is
// found, a followed table listed past row 1,000 is not taken for dropped,
// changes of both the last-created table and that one arrive, and later
// discoveries keep every table.
func TestIncludeFollowsTablesPastTheStatementLimit(t *testing.T) {
	// Doris's default limits (max_user_connections 100): the input's
	// sessions stay within max_flight_sessions however many tables it
	// follows, and none is refused.
	srv := harness.StartSim(t, dorissim.Config{})
	// zlast sorts after every table created later, so those push it past
	// row 1,000 of the listing.
	harness.CreateTable(t, srv, "many", "zlast", harness.TableOpts{Buckets: 1})
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['many\..*']`, "scan_mode: latest", "table_discovery_interval: 1s", "checkpoint_cache_key: many")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	harness.WaitCheckpoint(t, r, "many")

	const more = 1000
	for i := range more {
		harness.CreateTable(t, srv, "many", fmt.Sprintf("t%04d", i), harness.TableOpts{Buckets: 1})
	}
	lastNew := fmt.Sprintf("t%04d", more-1)
	// A thousand tables join at some tens per second with -race on a busy
	// machine (45 s seen on 2 cores at load 12): the bound is for a hang,
	// not a speed target.
	harness.WaitFor(t, 180*time.Second, "every table in the checkpoint", func() bool {
		st := harness.StoredState(t, r, "many")
		return st != nil && len(st.Tables) == more+1 && st.Tables["many.zlast"] != nil && st.Tables["many."+lastNew] != nil
	})
	runWorkload(t, harness.NewWorkload(srv, "many", lastNew, 1), 3)
	runWorkload(t, harness.NewWorkload(srv, "many", "zlast", 2), 3)
	col.WaitFor(t, 120*time.Second, "changes of "+lastNew+" and zlast", func(evs []harness.Event) bool {
		return len(harness.OfTable(evs, "many", lastNew)) >= 3 && len(harness.OfTable(evs, "many", "zlast")) >= 3
	})
	// One more table proves that a discovery ran after all of that, and
	// that it kept zlast.
	harness.CreateTable(t, srv, "many", "u0000", harness.TableOpts{Buckets: 1})
	harness.WaitFor(t, 120*time.Second, "many.u0000 in the checkpoint", func() bool {
		st := harness.StoredState(t, r, "many")
		return st != nil && st.Tables["many.u0000"] != nil
	})
	if st := harness.StoredState(t, r, "many"); len(st.Tables) != more+2 || st.Tables["many.zlast"] == nil {
		t.Fatalf("the checkpoint lost tables: %d of %d, zlast %v", len(st.Tables), more+2, st.Tables["many.zlast"] != nil)
	}
	if drops := logs.Lines(slog.LevelWarn, "was dropped"); len(drops) != 0 {
		t.Fatalf("a table was taken for dropped: %v", drops)
	}
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
	if st := srv.Stats(); st.FlightSessionsPeak > 16 || st.SessionsRefused != 0 {
		t.Fatalf("the FE saw %d Flight sessions at once and refused %d, past max_flight_sessions' default 16", st.FlightSessionsPeak, st.SessionsRefused)
	}
}
