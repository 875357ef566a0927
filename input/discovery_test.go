package input

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

const (
	binlogDDL = " (id BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES (" +
		`"enable_unique_key_merge_on_write" = "true", "binlog.enable" = "true", "binlog.format" = "ROW")`
	plainDDL = " (id BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES (" +
		`"enable_unique_key_merge_on_write" = "true")`
)

// discoveryRun is a coordinator in scan_mode latest over include d.*, on
// the in-process simulator, whose batches go to a recording sink.
type discoveryRun struct {
	srv   *dorissim.Server
	co    *coordinator
	sink  *recordingSink
	lines *logSink
}

func newDiscoveryRun(t *testing.T, ctx context.Context, ddl ...string) *discoveryRun {
	t.Helper()
	srv, err := dorissim.Start(ctx, dorissim.Config{User: "root", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	run := &discoveryRun{srv: srv}
	run.exec(t, append([]string{"CREATE DATABASE d"}, ddl...)...)
	log, lines := captureLogger(t)
	run.lines = lines
	res := service.MockResources(service.MockResourcesOptUseLogger(log))
	conf := &Config{
		FENodes: []string{srv.HTTPAddr()}, Username: "root", Password: "pw", Retries: 1,
		ConnectTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second,
		Selection: selection{include: []*regexp.Regexp{regexp.MustCompile(`^d\.`)}},
		ScanMode:  "latest", IncrementType: "DETAIL", CheckpointLimit: 1,
		MaxParallelSnapshotTables: 1, MaxParallelSnapshotSplits: 1,
	}
	rest, err := restClient(conf, res.Logger(), conf.FENodes, conf.Retries)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rest.Close)
	c := &conn{conf: conf, log: res.Logger(), rest: rest}
	m := newMetrics(res.Metrics())
	cat := &catalog{conf: conf, c: c, m: m, log: res.Logger()}
	del, err := delivery.New(delivery.Options[*checkpoint.State]{
		Limit: 1, Equal: checkpoint.Equal,
		Save: func(context.Context, *checkpoint.State) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	var planned windowplan.Ends
	su := &startup{conf: conf, log: res.Logger(), del: del, planned: &planned, c: c, cat: cat}
	sp, err := su.run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run.co = newCoordinator(runEnv{conf: conf, log: res.Logger(), m: m, c: c, clock: c, planned: &planned}, sp, cat)
	run.sink = &recordingSink{}
	run.co.em = &emitter{run: run.sink, progress: sp.st.Clone()}
	return run
}

func (r *discoveryRun) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if err := r.srv.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// position is the emitted position's tables and their highest tablets.
func (r *discoveryRun) position() map[string]int64 {
	out := map[string]int64{}
	r.co.em.view(func(st *checkpoint.State) {
		for k, tbl := range st.Tables {
			out[k] = tbl.MaxTablet
		}
	})
	return out
}

func (r *discoveryRun) discover(t *testing.T) {
	t.Helper()
	if err := (&discoverer{co: r.co}).run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Discovery compares the listing with the followed tables: a new table
// joins, a dropped one leaves, a recreated one starts over with its new
// tablets, and a table without a row binlog is skipped until it is gone.
func TestDiscoveryAddsRemovesAndRecreates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := newDiscoveryRun(t, ctx, "CREATE TABLE d.a"+binlogDDL, "CREATE TABLE d.plain"+plainDDL)
	if got := r.position(); len(got) != 1 || got["d.a"] == 0 {
		t.Fatalf("start position tables %v, want d.a only, with its tablets", got)
	}
	if n := r.co.skipped.count(); n != 1 {
		t.Fatalf("skipped %d tables at the start, want d.plain", n)
	}
	r.discover(t)
	if len(r.sink.states) != 0 {
		t.Fatalf("a discovery that found no change emitted %d positions", len(r.sink.states))
	}

	r.exec(t, "CREATE TABLE d.b"+binlogDDL)
	r.discover(t)
	got := r.position()
	if _, ok := got["d.b"]; !ok || len(got) != 2 {
		t.Fatalf("after CREATE TABLE d.b the position has %v, want d.a and d.b", got)
	}
	r.co.em.view(func(st *checkpoint.State) {
		if ph := st.Tables["d.b"].Phase; ph != checkpoint.PhaseBinlog {
			t.Errorf("d.b joined in phase %s, want binlog (scan_mode latest)", ph)
		}
	})
	if r.co.table("d.b") == nil {
		t.Fatalf("d.b is in the position but not followed")
	}

	before := got["d.a"]
	r.exec(t, "DROP TABLE d.a", "CREATE TABLE d.a"+binlogDDL)
	emitted := len(r.sink.states)
	r.discover(t)
	if got := r.position(); got["d.a"] <= before {
		t.Fatalf("recreated d.a has max tablet %d, want above its old %d (a new table)", got["d.a"], before)
	}
	// It left and joined again: a position without it went out between.
	if !slices.ContainsFunc(r.sink.states[emitted:], func(st *checkpoint.State) bool { return st.Tables["d.a"] == nil }) {
		t.Fatalf("recreated d.a was kept as the same table, want it to leave and join again")
	}

	r.exec(t, "DROP TABLE d.b", "DROP TABLE d.plain")
	r.discover(t)
	if got := r.position(); len(got) != 1 || got["d.b"] != 0 {
		t.Fatalf("after DROP TABLE d.b the position has %v, want d.a only", got)
	}
	if r.co.table("d.b") != nil {
		t.Fatalf("dropped d.b is still followed")
	}
	if n := r.co.skipped.count(); n != 0 {
		t.Fatalf("d.plain is gone but still counted as skipped (%d)", n)
	}
}

// The connection test's catalog is the run's: a matched table without a
// row binlog is reported, one with it passes.
func TestSelectedTableProblemsReportsATableWithoutBinlog(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := newDiscoveryRun(t, ctx, "CREATE TABLE d.a"+binlogDDL, "CREATE TABLE d.plain"+plainDDL)
	problems := selectedTableProblems(ctx, r.co.cat)
	if len(problems) != 1 {
		t.Fatalf("problems %v, want one for d.plain", problems)
	}
	if got := problems[0].Error(); !regexp.MustCompile(`d\.plain`).MatchString(got) {
		t.Fatalf("problem %q does not name d.plain", got)
	}
}

// A table that gains tablets (a new partition) is the same table: its
// highest tablet is noted and it stays. A skipped table created again with
// a row binlog joins and is no longer counted as skipped. Discovery logs what
// changed, and nothing when nothing did.
func TestDiscoveryNotesNewTabletsAndAdmitsAFixedTable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const partitioned = "CREATE TABLE d.p (dt DATE NOT NULL, id BIGINT NOT NULL) DUPLICATE KEY(dt, id) PARTITION BY RANGE(dt) (" +
		`PARTITION p1 VALUES LESS THAN ("2026-09-14")) DISTRIBUTED BY HASH(id) BUCKETS 1 ` +
		`PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`
	r := newDiscoveryRun(t, ctx, partitioned, "CREATE TABLE d.plain"+plainDDL)
	r.discover(t)
	if n := len(r.lines.Lines("INFO", "Table discovery:")); n != 0 {
		t.Fatalf("a discovery that found no change logged %d times", n)
	}
	before := r.position()["d.p"]
	r.exec(t, `ALTER TABLE d.p ADD PARTITION p2 VALUES LESS THAN ("2026-09-15")`)
	emitted := len(r.sink.states)
	r.discover(t)
	if got := r.position()["d.p"]; got <= before {
		t.Fatalf("after ADD PARTITION d.p has max tablet %d, want above %d", got, before)
	}
	if slices.ContainsFunc(r.sink.states[emitted:], func(st *checkpoint.State) bool { return st.Tables["d.p"] == nil }) {
		t.Fatalf("a table that gained a partition was taken for a new one")
	}
	// Doris enables a row binlog only at CREATE TABLE.
	r.exec(t, "DROP TABLE d.plain", "CREATE TABLE d.plain"+binlogDDL)
	r.discover(t)
	if _, ok := r.position()["d.plain"]; !ok || r.co.table("d.plain") == nil {
		t.Fatalf("d.plain has a row binlog now but did not join: %v", r.position())
	}
	if n := r.co.skipped.count(); n != 0 {
		t.Fatalf("d.plain joined but is still counted as skipped (%d)", n)
	}
	if n := len(r.lines.Lines("INFO", "Table discovery: added 1 table: d.plain")); n != 1 {
		t.Fatalf("%d discovery logs naming d.plain as added, want 1", n)
	}
}
