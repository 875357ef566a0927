package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestIdleTablesAreNotQueried follows 20 tables of which two change, one
// of them through a commit whose publish is held for a while: every
// change of both arrives once and the tables rebuild exactly, and once
// nothing changes a poll runs no @incr query at all. With
// skip_idle_tables: false every poll queries every table.
func TestIdleTablesAreNotQueried(t *testing.T) {
	const tables = 20
	for _, skip := range []bool{true, false} {
		t.Run(fmt.Sprintf("skip_idle_tables=%v", skip), func(t *testing.T) {
			srv := harness.StartSim(t, dorissim.Config{})
			harness.Exec(t, srv, "CREATE DATABASE idle")
			for i := range tables {
				harness.CreateTable(t, srv, "idle", fmt.Sprintf("t%02d", i), harness.TableOpts{})
			}
			col := &harness.Collector{}
			in := harness.SelectYAML(srv, `include: ['idle\..*']`, "scan_mode: latest", "binlog_poll_interval: 1s",
				fmt.Sprintf("skip_idle_tables: %v", skip))
			start := srv.Stats().FEIncrQueries
			harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache}, col)
			// Two windows of every table: the chain runs, and the rule has the
			// snapshots it needs from then on.
			harness.WaitFor(t, 60*time.Second, "two windows of every table", func() bool {
				return srv.Stats().FEIncrQueries-start >= 2*tables
			})

			a, b := harness.NewWorkload(srv, "idle", "t00", 1), harness.NewWorkload(srv, "idle", "t07", 2)
			runWorkload(t, a, 10)
			hold, err := srv.Store().HoldPublish("idle", "t07")
			if err != nil {
				t.Fatal(err)
			}
			runWorkload(t, b, 1) // committed, its publish held
			time.Sleep(1500 * time.Millisecond)
			hold.Release()
			runWorkload(t, b, 10)
			runWorkload(t, a, 10)
			replayEquals(t, srv, col, "idle", "t00", "t07")

			// Quiet: after at most two more windows of the changed tables, a
			// poll queries nothing (or everything, without the rule). Polls
			// are counted by the FE's GET /api/tso, asked twice a poll with
			// the rule (window end and fence) and once without.
			perPoll := int64(1)
			if skip {
				perPoll = 2
			}
			polls := func(n int64) {
				from := srv.Stats().HTTP["GET /api/tso"]
				harness.WaitFor(t, 60*time.Second, fmt.Sprintf("%d polls", n), func() bool {
					return srv.Stats().HTTP["GET /api/tso"]-from >= n*perPoll
				})
			}
			polls(3)
			from := srv.Stats().FEIncrQueries
			polls(3)
			n := srv.Stats().FEIncrQueries - from
			if skip && n != 0 {
				t.Fatalf("%d @incr queries in 3 quiet polls, want none", n)
			}
			if !skip && n < 2*tables {
				t.Fatalf("%d @incr queries in 3 quiet polls without the rule, want every table every poll (at least %d)", n, 2*tables)
			}
		})
	}
}
