package faults

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const visibleWaitIncident = `waits for transactions to become visible`

// TestVisibleWaitRetrySucceeds answers a window with a few 5101s within
// binlog_visible_wait_timeout: the same window is retried until it reads.
func TestVisibleWaitRetrySucceeds(t *testing.T) {
	f := startLatest(t, "wait_ok")
	f.steps(t, 20)
	f.srv.SetFaults(dorissim.Faults{IncrVisibleWaitTimeouts: 3})
	f.steps(t, 10)
	f.assertNoLoss(t, 60*time.Second)
	assertWarned(t, f.logs, visibleWaitIncident, 1)
	if lines := f.logs.Lines(0, "Reading binlog window"); len(lines) != 0 {
		t.Fatalf("5101s within the budget were handled as other errors: %v", lines)
	}
}

// TestVisibleWaitBudgetRunsOut keeps answering 5101 past a 2s
// binlog_visible_wait_timeout: the input then reconnects with backoff and
// retries the same window, never skipping it, and recovers without loss.
func TestVisibleWaitBudgetRunsOut(t *testing.T) {
	f := startLatest(t, "wait_out", "binlog_visible_wait_timeout: 2s")
	f.steps(t, 20)
	f.srv.SetFaults(dorissim.Faults{IncrVisibleWaitTimeouts: 6})
	f.steps(t, 10)
	f.assertNoLoss(t, 90*time.Second)
	assertWarned(t, f.logs, `waits for transactions to become visible \(`, 1)
	// Running out of the budget switches to reconnects, which is said once.
	assertWarned(t, f.logs, `after binlog_visible_wait_timeout 2s .*reconnecting with backoff`, 1)
}

// TestWindowNotReady plays an FE whose TSO runs ahead for three seconds (as
// during a master's TSO recovery): the window the input asks for ends after
// the simulator's current TSO, so Doris answers 5100 END_AFTER_CURRENT_TSO
// until time catches up. The same window is retried after retryAfterMs.
func TestWindowNotReady(t *testing.T) {
	srv := harness.StartSim(t, dorissim.Config{})
	harness.CreateTable(t, srv, db, "not_ready", harness.TableOpts{})
	proxy := harness.StartFEProxy(t, srv.HTTPAddr())
	f := newFixture(t, srv, "not_ready", harness.NewWorkload(srv, db, "not_ready", 5), &harness.Collector{})
	in := harness.InputYAML(srv, db+".not_ready", "scan_mode: latest", "batch_size: 50")
	in = replaceFENodes(in, srv.HTTPAddr(), proxy.Addr())
	f.run = harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: f.logs}, f.col)
	harness.WaitCheckpoint(t, f.run, harness.CheckpointKey(db, "not_ready"))
	f.steps(t, 10)
	proxy.Rewrite(freezeTSOAhead(3 * time.Second))
	f.steps(t, 10)
	waitLogged(t, f.logs, 0, `is not ready yet`, 30*time.Second)
	f.assertNoLoss(t, 60*time.Second)
	assertWarned(t, f.logs, `is not ready yet`, 1)
}

// freezeTSOAhead makes /api/tso report now+ahead, frozen until the real
// time passes it, so that the reported time never moves backwards.
func freezeTSOAhead(ahead time.Duration) func(string, int, []byte) (int, []byte) {
	var once sync.Once
	var frozen int64
	return func(path string, status int, body []byte) (int, []byte) {
		if path != "/api/tso" || status != http.StatusOK {
			return status, body
		}
		var env map[string]any
		if err := json.Unmarshal(body, &env); err != nil {
			return status, body
		}
		data, _ := env["data"].(map[string]any)
		phys, _ := data["current_tso_physical_time"].(float64)
		once.Do(func() { frozen = int64(phys) + ahead.Milliseconds() })
		if int64(phys) >= frozen {
			return status, body
		}
		data["current_tso_physical_time"] = frozen
		data["window_end_physical_time"] = frozen
		data["current_tso"] = frozen << 18
		data["current_tso_logical_counter"] = 0
		out, err := json.Marshal(env)
		if err != nil {
			return status, body
		}
		return status, out
	}
}
