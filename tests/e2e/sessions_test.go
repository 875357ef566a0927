package e2e

import (
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

// TestManyTablesOverFewSessions follows 300 tables with max_flight_sessions
// 8 on a simulator at Doris's default limits (max_user_connections 100):
// transactions that each change many tables come out once each, in one
// (TSO, table, LSN, OP) order, and the FE never sees more than 8 Flight
// sessions of the input at once, nor refuses one.
func TestManyTablesOverFewSessions(t *testing.T) {
	const tables, limit = 300, 8
	srv := harness.StartSim(t, dorissim.Config{})
	for i := range tables {
		harness.CreateTable(t, srv, "wide", fmt.Sprintf("t%03d", i), harness.TableOpts{Buckets: 1, Duplicate: true})
	}
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['wide\..*']`, "scan_mode: latest", "binlog_poll_interval: 1s",
		fmt.Sprintf("max_flight_sessions: %d", limit), "checkpoint_cache_key: wide")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	harness.WaitFor(t, 120*time.Second, "every table in the checkpoint", func() bool {
		st := harness.StoredState(t, r, "wide")
		return st != nil && st.Stream != nil && len(st.Tables) == tables
	})

	// Twelve transactions, each inserting into 50 tables (every sixth
	// table, shifted), in reverse name order; each table gets two rows.
	want := map[string]bool{}
	for tx := range 12 {
		var stmts []string
		for i := tables - 1; i >= 0; i-- {
			if i%6 != tx%6 {
				continue
			}
			id := tx*1000 + i
			table := fmt.Sprintf("t%03d", i)
			stmts = append(stmts, fmt.Sprintf("INSERT INTO wide.%s (id, name, qty, amount) VALUES (%d, 'x', 1, 1.00)", table, id))
			want[fmt.Sprintf("%s/%d", table, id)] = true
		}
		harness.Tx(t, srv, stmts...)
	}
	evs := col.WaitFor(t, 180*time.Second, "every inserted row", func(evs []harness.Event) bool { return len(evs) >= len(want) })
	time.Sleep(2 * time.Second) // a row twice would show in the next windows
	evs = col.Events()
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: a row came twice", len(evs), len(want))
	}
	seen := map[string]bool{}
	for i, ev := range evs {
		key := fmt.Sprintf("%s/%v", ev.Table, ev.Row["id"])
		if !want[key] || seen[key] {
			t.Fatalf("event %d (%s) not inserted, or seen twice", i, key)
		}
		seen[key] = true
		if i > 0 && !posLess(evs[i-1], ev) {
			t.Fatalf("event %d (%s.%s tso %d lsn %d) comes before event %d (%s.%s tso %d lsn %d)",
				i, ev.Database, ev.Table, ev.TSO, ev.LSN, i-1, evs[i-1].Database, evs[i-1].Table, evs[i-1].TSO, evs[i-1].LSN)
		}
	}
	st := srv.Stats()
	if st.FlightSessionsPeak > limit || st.SessionsRefused != 0 {
		t.Fatalf("the FE saw %d Flight sessions at once and refused %d; max_flight_sessions is %d", st.FlightSessionsPeak, st.SessionsRefused, limit)
	}
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
}

// posLess orders events as the input emits them: (TSO, table, LSN, OP).
func posLess(a, b harness.Event) bool {
	if a.TSO != b.TSO {
		return a.TSO < b.TSO
	}
	if ka, kb := a.Database+"."+a.Table, b.Database+"."+b.Table; ka != kb {
		return ka < kb
	}
	return slices.Compare([]int64{a.LSN, a.Op}, []int64{b.LSN, b.Op}) < 0
}

// TestThousandTablesOfTenThousand follows 1,000 of a database's 10,000
// tables at Doris's default limits: the input lists all of them, follows
// the 1,000 its include matches, streams their changes, and never opens
// more than max_flight_sessions (default 16) nor has one refused.
func TestThousandTablesOfTenThousand(t *testing.T) {
	const known, followed = 10000, 1000
	srv := harness.StartSim(t, dorissim.Config{})
	harness.Exec(t, srv, "CREATE DATABASE big")
	for i := range known {
		name := fmt.Sprintf("o%05d", i) // other tables, not followed
		if i%10 == 0 {
			name = fmt.Sprintf("f%05d", i) // every tenth is followed
		}
		harness.Exec(t, srv, fmt.Sprintf("CREATE TABLE big.%s (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 "+
			`PROPERTIES ("replication_num" = "1", "binlog.enable" = "true", "binlog.format" = "ROW")`, name))
	}
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['big\.f\d+']`, "scan_mode: latest", "binlog_poll_interval: 1s", "checkpoint_cache_key: big")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	harness.WaitFor(t, 180*time.Second, "the followed tables in the checkpoint", func() bool {
		st := harness.StoredState(t, r, "big")
		return st != nil && st.Stream != nil && len(st.Tables) == followed
	})
	harness.Tx(t, srv, "INSERT INTO big.f00000 VALUES (1)", "INSERT INTO big.f09990 VALUES (2)", "INSERT INTO big.o00001 VALUES (3)")
	harness.Tx(t, srv, "INSERT INTO big.f05000 VALUES (4)")
	evs := col.WaitFor(t, 180*time.Second, "the followed tables' rows", func(evs []harness.Event) bool { return len(evs) >= 3 })
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%s/%v", ev.Table, ev.Row["id"]))
	}
	if want := []string{"f00000/1", "f09990/2", "f05000/4"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	st := srv.Stats()
	if st.FlightSessionsPeak > 16 || st.SessionsRefused != 0 {
		t.Fatalf("the FE saw %d Flight sessions at once and refused %d, past max_flight_sessions' default 16", st.FlightSessionsPeak, st.SessionsRefused)
	}
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
}

// TestSnapshotsAndWindowsShareTheSessions snapshots 30 tables in `initial`
// mode with max_flight_sessions 3, below what the default snapshot
// parallelism would use (4 tables × 2 splits), and then streams them: every
// snapshot row and every change arrives once, and the FE never sees more
// than 3 Flight sessions of the input at once.
func TestSnapshotsAndWindowsShareTheSessions(t *testing.T) {
	const tables, limit = 30, 3
	srv := harness.StartSim(t, dorissim.Config{})
	want := map[string]bool{}
	for i := range tables {
		name := fmt.Sprintf("s%02d", i)
		harness.CreateTable(t, srv, "snap", name, harness.TableOpts{Buckets: 4, Duplicate: true})
		harness.Exec(t, srv, fmt.Sprintf("INSERT INTO snap.%s (id, name, qty, amount) VALUES (1, 'a', 1, 1.00), (2, 'b', 2, 2.00), (3, 'c', 3, 3.00)", name))
		for id := 1; id <= 3; id++ {
			want[fmt.Sprintf("snapshot/%s/%d", name, id)] = true
		}
	}
	time.Sleep(1100 * time.Millisecond) // in a past Doris second: in the snapshot
	logs := &harness.LogCapture{}
	col := &harness.Collector{}
	in := harness.SelectYAML(srv, `include: ['snap\..*']`, "scan_mode: initial", "binlog_poll_interval: 1s",
		fmt.Sprintf("max_flight_sessions: %d", limit), "checkpoint_cache_key: snap")
	r := harness.RunStream(t, harness.StreamConfig{Input: in, Resources: harness.MemoryCache, Logs: logs}, col)
	harness.WaitFor(t, 180*time.Second, "every table streaming", func() bool {
		st := harness.StoredState(t, r, "snap")
		if st == nil || st.Stream == nil || len(st.Tables) != tables {
			return false
		}
		for _, tb := range st.Tables {
			if tb.Phase != "binlog" {
				return false
			}
		}
		return true
	})
	var stmts []string
	for i := range tables {
		name := fmt.Sprintf("s%02d", i)
		stmts = append(stmts, fmt.Sprintf("INSERT INTO snap.%s (id, name, qty, amount) VALUES (10, 'x', 1, 1.00)", name))
		want[fmt.Sprintf("binlog/%s/10", name)] = true
	}
	harness.Tx(t, srv, stmts...)
	col.WaitFor(t, 120*time.Second, "every row", func(evs []harness.Event) bool { return len(evs) >= len(want) })
	time.Sleep(2 * time.Second) // a row twice would show in the next windows
	seen := map[string]bool{}
	for _, ev := range col.Events() {
		key := fmt.Sprintf("%s/%s/%v", ev.Phase, ev.Table, ev.Row["id"])
		if !want[key] || seen[key] {
			t.Fatalf("%s not written, or delivered twice", key)
		}
		seen[key] = true
	}
	if len(seen) != len(want) {
		t.Fatalf("%d of %d rows delivered", len(seen), len(want))
	}
	st := srv.Stats()
	if st.FlightSessionsPeak > limit || st.SessionsRefused != 0 {
		t.Fatalf("the FE saw %d Flight sessions at once and refused %d; max_flight_sessions is %d", st.FlightSessionsPeak, st.SessionsRefused, limit)
	}
	if errs := logs.Lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
}
