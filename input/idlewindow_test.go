package input

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// An idle table costs no @incr query once the rule has a snapshot fenced
// below a window's start (the third poll: the first two have none), and
// still moves the checkpoint with every window. A table that changed is
// read in the window of its change and, because the change came after
// the snapshot that starts the next window, once more; its row arrives
// once.
func TestIdleTablesCostNoIncrQuery(t *testing.T) {
	f := newIdleFixture(t, nil, []string{"CREATE TABLE d.a" + dupBinlogDDL, "CREATE TABLE d.b" + dupBinlogDDL}, "a", "b")
	got := f.polls(t, "10:00:01", "10:00:03")
	f.commit(t, simAtMs(t, "10:00:03", 500), "INSERT INTO d.a VALUES (1)")
	got = append(got, f.polls(t, "10:00:04", "10:00:07")...)
	if want := []int64{2, 2, 0, 1, 1, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("@incr queries per poll %v, want %v", got, want)
	}
	if rows := f.rows(t); !slices.Equal(rows, []string{`d.a {"id":1}`}) {
		t.Fatalf("emitted %v, want d.a's row once", rows)
	}
	if start := f.chainStart(t); start != "2026-12-01 10:00:07" {
		t.Fatalf("chain at %s after the windows up to 10:00:07, want 10:00:07", start)
	}
	if n := len(f.e.lines.Lines("DEBUG", "idle table(s) skipped")); n != 5 {
		t.Errorf("%d polls logged skipped tables, want 5 (from the third on)", n)
	}
}

// A change in every position of a window arrives once: in the last
// millisecond of a window, in the first millisecond of the next one
// committed between the poll's reading of the window end and of the
// versions (the snapshot then already holds a change of the next window,
// so it must not start that window), between the versions and the TSO
// read that fences them, and in the first millisecond after a poll.
func TestIdleRuleMissesNoChangeAnywhereInAWindow(t *testing.T) {
	f := newIdleFixture(t, nil, []string{"CREATE TABLE d.a" + dupBinlogDDL, "CREATE TABLE d.b" + dupBinlogDDL,
		"CREATE TABLE d.c" + dupBinlogDDL, "CREATE TABLE d.e" + dupBinlogDDL}, "a", "b", "c", "e")
	f.polls(t, "10:00:01", "10:00:03")
	f.commit(t, simAtMs(t, "10:00:03", 999), "INSERT INTO d.a VALUES (1)")
	f.afterEnd = func() { f.commit(t, simAtMs(t, "10:00:04", 0), "INSERT INTO d.b VALUES (2)") }
	f.beforeFence = func() { f.commit(t, simAtMs(t, "10:00:04", 0), "INSERT INTO d.c VALUES (3)") }
	f.poll(t, simAtMs(t, "10:00:04", 0))
	if f.afterEnd != nil || f.beforeFence != nil {
		t.Fatal("the poll did not run both hooks")
	}
	f.commit(t, simAtMs(t, "10:00:04", 0), "INSERT INTO d.e VALUES (4)")
	got := f.polls(t, "10:00:05", "10:00:08")
	want := []string{`d.a {"id":1}`, `d.b {"id":2}`, `d.c {"id":3}`, `d.e {"id":4}`}
	if rows := f.rows(t); !slices.Equal(rows, want) {
		t.Fatalf("emitted %v, want %v", rows, want)
	}
	if got[len(got)-1] != 0 {
		t.Fatalf("@incr queries per poll %v: the last poll, with nothing changed, should skip every table", got)
	}
}

// A commit whose publish is held has moved COMMITTED_VERSION but not
// VISIBLE_VERSION: the window is read, its @incr waits for the publish,
// and the row arrives once.
func TestIdleRuleReadsACommitWhosePublishIsHeld(t *testing.T) {
	f := newIdleFixture(t, nil, []string{"CREATE TABLE d.a" + dupBinlogDDL, "CREATE TABLE d.b" + dupBinlogDDL}, "a", "b")
	f.polls(t, "10:00:01", "10:00:03")
	hold, err := f.e.srv.Store().HoldPublish("d", "a")
	if err != nil {
		t.Fatal(err)
	}
	f.commit(t, simAtMs(t, "10:00:03", 200), "INSERT INTO d.a VALUES (1)")
	// Release the publish once the window's @incr waits for it; a poll
	// that never waits leaves it held until the poll is over.
	polled, released := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(released)
		defer hold.Release()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for !hold.Waiting() {
			select {
			case <-polled:
				return
			case <-tick.C:
			}
		}
	}()
	n := f.poll(t, simAtMs(t, "10:00:04", 0))
	close(polled)
	<-released
	if n != 1 {
		t.Fatalf("%d @incr queries in the window of the held commit, want 1 (d.a only)", n)
	}
	f.polls(t, "10:00:05", "10:00:06")
	if rows := f.rows(t); !slices.Equal(rows, []string{`d.a {"id":1}`}) {
		t.Fatalf("emitted %v, want d.a's row once", rows)
	}
}

// partDDL is a RANGE-partitioned binlog table with two partitions.
const partDDL = " (dt DATE NOT NULL, id BIGINT) DUPLICATE KEY(dt, id) PARTITION BY RANGE(dt) (" +
	`PARTITION p1 VALUES LESS THAN ("2026-01-02"), PARTITION p2 VALUES LESS THAN ("2026-01-03")) ` +
	`DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

// A partition added and written, one dropped, one replaced (TRUNCATE
// gives new partition ids at the versions the old ones may have had), and
// a table dropped and created again under its name at the same versions:
// each window with such a change is read, and every change arrives once.
func TestIdleRuleReadsPartitionAndTableChanges(t *testing.T) {
	f := newIdleFixture(t, nil, []string{"CREATE TABLE d.p" + partDDL, "CREATE TABLE d.u" + dupBinlogDDL,
		"CREATE TABLE d.r" + dupBinlogDDL, "CREATE TABLE d.q" + dupBinlogDDL}, "p", "u", "r", "q")
	f.commit(t, simAtMs(t, "10:00:00", 100), "INSERT INTO d.u VALUES (1)", "INSERT INTO d.r VALUES (1)")
	f.polls(t, "10:00:01", "10:00:03")

	// Added and written.
	f.clock.set(simAtMs(t, "10:00:03", 100))
	f.e.exec(t, `ALTER TABLE d.p ADD PARTITION p3 VALUES LESS THAN ("2026-01-04")`)
	f.commit(t, simAtMs(t, "10:00:03", 200), "INSERT INTO d.p VALUES ('2026-01-03', 30)")
	f.polls(t, "10:00:04", "10:00:05")
	// Dropped, the other partition written.
	f.clock.set(simAtMs(t, "10:00:05", 100))
	f.e.exec(t, "ALTER TABLE d.p DROP PARTITION p3")
	f.commit(t, simAtMs(t, "10:00:05", 200), "INSERT INTO d.p VALUES ('2026-01-01', 10)")
	f.polls(t, "10:00:06", "10:00:07")
	// Replaced: u had one load (committed version 2); after TRUNCATE and
	// one load its new partition is at 2 again, under a new id.
	f.clock.set(simAtMs(t, "10:00:07", 100))
	f.e.exec(t, "TRUNCATE TABLE d.u")
	f.commit(t, simAtMs(t, "10:00:07", 200), "INSERT INTO d.u VALUES (2)")
	f.polls(t, "10:00:08", "10:00:09")
	// Dropped and created again: r's only partition is at 2 again.
	f.clock.set(simAtMs(t, "10:00:09", 100))
	f.e.exec(t, "DROP TABLE d.r", "CREATE TABLE d.r"+dupBinlogDDL)
	f.commit(t, simAtMs(t, "10:00:09", 200), "INSERT INTO d.r VALUES (2)")
	got := f.polls(t, "10:00:10", "10:00:12")

	want := []string{`d.r {"id":1}`, `d.u {"id":1}`, `d.p {"dt":"2026-01-03","id":30}`, `d.p {"dt":"2026-01-01","id":10}`,
		`d.u {"id":2}`, `d.r {"id":2}`}
	if rows := f.rows(t); !slices.Equal(rows, want) {
		t.Fatalf("emitted %v, want %v", rows, want)
	}
	if got[len(got)-1] != 0 {
		t.Fatalf("@incr queries per poll at the end %v, want the last poll to skip every table", got)
	}
}

// A restart starts with no version snapshot: its first two windows read
// every table, and a change made while the input was down arrives once.
func TestIdleRuleAfterARestartReadsUntilItHasASnapshot(t *testing.T) {
	f := newIdleFixture(t, nil, []string{"CREATE TABLE d.a" + dupBinlogDDL, "CREATE TABLE d.b" + dupBinlogDDL}, "a", "b")
	f.polls(t, "10:00:01", "10:00:03")
	var st = f.sink.states[len(f.sink.states)-1].Clone()
	before := f.rows(t)
	f.commit(t, simAtMs(t, "10:00:03", 500), "INSERT INTO d.b VALUES (7)")
	f.restart(t, st)
	if got, want := f.polls(t, "10:00:05", "10:00:08"), []int64{2, 2, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("@incr queries per poll after the restart %v, want %v", got, want)
	}
	if rows := f.rows(t); len(before) != 0 || !slices.Equal(rows, []string{`d.b {"id":7}`}) {
		t.Fatalf("emitted %v then %v, want d.b's row once after the restart", before, rows)
	}
}

// A version query that fails reads every table of that poll's window, as
// without the rule, and says so once; the next polls skip again. A Doris
// without the version columns, or in cloud mode, has every table read in
// every window from then on, said once.
func TestIdleRuleFallsBackWhereItCannotTell(t *testing.T) {
	f := newIdleFixture(t, nil, []string{"CREATE TABLE d.a" + dupBinlogDDL, "CREATE TABLE d.b" + dupBinlogDDL}, "a", "b")
	f.polls(t, "10:00:01", "10:00:03")
	f.e.srv.SetFaults(dorissim.Faults{FailPartitionsReads: 1})
	f.commit(t, simAtMs(t, "10:00:03", 500), "INSERT INTO d.a VALUES (1)")
	got := f.polls(t, "10:00:04", "10:00:07")
	f.e.srv.SetFaults(dorissim.Faults{FailPartitionsReads: 1})
	got = append(got, f.polls(t, "10:00:08", "10:00:09")...)
	// 10:00:04 fails (both read, no snapshot kept); 05 and 06 read a, as
	// the latest start snapshot of both is the one fenced at 03, older
	// than the change; 07 skips both; 08 fails again, 09 skips both.
	if want := []int64{2, 1, 1, 0, 2, 0}; !slices.Equal(got, want) {
		t.Fatalf("@incr queries per poll %v, want %v", got, want)
	}
	if n := len(f.e.lines.Lines("WARN", "Reading the partition versions of database d failed")); n != 1 {
		t.Errorf("%d warnings about the failed version query, want 1", n)
	}
	if rows := f.rows(t); !slices.Equal(rows, []string{`d.a {"id":1}`}) {
		t.Fatalf("emitted %v, want d.a's row once", rows)
	}

	for _, flavor := range []storage.PartitionsFlavor{storage.PartitionsLegacy, storage.PartitionsCloud} {
		f := newIdleFixture(t, nil, []string{"CREATE TABLE d.a" + dupBinlogDDL, "CREATE TABLE d.b" + dupBinlogDDL}, "a", "b")
		f.e.srv.Store().SetPartitionsFlavor(flavor)
		if got := f.polls(t, "10:00:01", "10:00:05"); !slices.Equal(got, []int64{2, 2, 2, 2, 2}) {
			t.Fatalf("flavor %d: @incr queries per poll %v, want every table every poll", flavor, got)
		}
		lines := f.e.lines.Lines("WARN", "Idle tables are read in every window from now on")
		if len(lines) != 1 {
			t.Fatalf("flavor %d: %d warnings, want 1: %v", flavor, len(lines), lines)
		}
		if want := map[storage.PartitionsFlavor]string{storage.PartitionsLegacy: "apache/doris#51025", storage.PartitionsCloud: "cloud mode"}[flavor]; !strings.Contains(lines[0], want) {
			t.Errorf("flavor %d: warning %q does not say %q", flavor, lines[0], want)
		}
	}
}

// A skipped table's window gets the retention check a read gets: a
// window whose start has expired stops the input with
// binlog_on_expired: fail, and is counted and logged with continue, for
// the idle table as for the one that changed. No table ages past its TTL
// unseen.
func TestIdleTablesKeepTheirRetentionCheck(t *testing.T) {
	ttl := ` PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW", "binlog.ttl_seconds" = "60")`
	ddl := " (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1" + ttl
	for _, onExpired := range []string{"fail", "continue"} {
		f := newIdleFixture(t, func(c *Config) { c.OnExpired = onExpired }, []string{"CREATE TABLE d.a" + ddl, "CREATE TABLE d.b" + ddl}, "a", "b")
		f.polls(t, "10:00:01", "10:00:03")
		f.commit(t, simAtMs(t, "10:00:03", 500), "INSERT INTO d.b VALUES (1)")
		// The next poll comes 5 minutes later: [10:00:03, 10:05:00) starts
		// before the oldest retained change.
		n, err := f.tryPoll(t, simAt(t, "10:05:00"))
		if onExpired == "fail" {
			if !isFatal(err) || !strings.Contains(err.Error(), "binlog.ttl_seconds=60") {
				t.Fatalf("fail: %v, want a fatal expiry", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("continue: %d @incr queries, want 1 (d.b; d.a is idle)", n)
		}
		for _, key := range []string{"d.a", "d.b"} {
			if got := len(f.e.lines.Lines("ERROR", "of "+key+" starts before the oldest retained change")); got != 1 {
				t.Errorf("continue: %d expiry errors for %s, want 1", got, key)
			}
		}
		if start := f.chainStart(t); start != "2026-12-01 10:05:00" {
			t.Fatalf("continue: chain at %s, want 10:05:00", start)
		}
	}
}
