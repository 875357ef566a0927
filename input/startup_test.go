package input

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/input/windowplan"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
)

func fixedSelection(keys ...string) selection {
	var sel selection
	for _, k := range keys {
		db, table, _ := strings.Cut(k, ".")
		sel.fixed = append(sel.fixed, newTableName(db, table))
	}
	return sel
}

func includeSelection(re string) selection {
	return selection{include: []*regexp.Regexp{regexp.MustCompile(re)}}
}

// A fresh start takes its position from scan_mode: where the chain starts,
// which phase each table starts in, and whether that start is stored at
// once (every mode with a binlog phase, so a crash keeps the same start).
func TestFreshStartPerScanMode(t *testing.T) {
	for _, tc := range []struct {
		mode, scanTS string
		phase        string
		chainStart   string // "" no chain; "now" the Doris time
		stored       bool
	}{
		{mode: "snapshot", phase: checkpoint.PhaseSnapshot},
		{mode: "latest", phase: checkpoint.PhaseBinlog, chainStart: "now", stored: true},
		// scan_timestamp is FE wall time: +08:00 is eight hours ahead of UTC.
		{mode: "from-timestamp", scanTS: "2026-11-30 12:00:00", phase: checkpoint.PhaseBinlog, chainStart: "2026-11-30 04:00:00", stored: true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			fr := runFreshStart(t, dorissim.Config{TimeZone: "+08:00"},
				&Config{ScanMode: tc.mode, ScanTimestamp: tc.scanTS}, tc.phase)
			e, su, saved, before, sp := fr.e, fr.su, fr.saved, fr.before, fr.sp
			switch {
			case tc.chainStart == "" && sp.st.Stream != nil:
				t.Fatalf("scan_mode %s started a binlog chain at %s", tc.mode, sp.st.Stream.Start)
			case tc.chainStart == "now":
				after, _ := e.c.currentBound(testCtx(t))
				if got := windowplan.BoundOf(sp.st.Stream.Start); got < before || got > after {
					t.Fatalf("chain starts at %s, want the Doris time between %s and %s", got, before, after)
				}
			case tc.chainStart != "" && (sp.st.Stream == nil || sp.st.Stream.Start.String() != tc.chainStart):
				t.Fatalf("chain %+v, want it to start at %s", sp.st.Stream, tc.chainStart)
			}
			committed, ok := su.del.Committed()
			if ok != tc.stored || len(*saved) != btoi(tc.stored) {
				t.Fatalf("start stored: committed %v, %d saves; want %v", ok, len(*saved), tc.stored)
			}
			if ok && !checkpoint.Equal(committed, sp.st) {
				t.Fatalf("committed %+v, want the start %+v", committed, sp.st)
			}
			if n := len(e.lines.Lines("INFO", "Starting with scan_mode "+tc.mode)); n != 1 {
				t.Errorf("%d start logs for scan_mode %s, want 1", n, tc.mode)
			}
		})
	}
}

// freshRun is a fresh start's run over d.a, and what it is checked against.
type freshRun struct {
	e     *simEnv
	su    *startup
	saved *[]*checkpoint.State
	// before is the Doris time read just before the run.
	before windowplan.Bound
	sp     *startPoint
}

// runFreshStart runs a start-up following d.a (a table with a row binlog)
// with conf on a simulator with sc, and checks the fresh tables it starts
// with are in phase.
func runFreshStart(t *testing.T, sc dorissim.Config, conf *Config, phase string) freshRun {
	t.Helper()
	conf.Selection = fixedSelection("d.a")
	fr := freshRun{e: newSimEnv(t, sc, conf, "CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)}
	fr.su, fr.saved = fr.e.startup(t)
	var err error
	if fr.before, err = fr.e.c.currentBound(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if fr.sp, err = fr.su.run(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	checkFreshTables(t, fr.sp, phase)
	return fr
}

func checkFreshTables(t *testing.T, sp *startPoint, phase string) {
	t.Helper()
	if len(sp.tables) != 1 || sp.tables[0].name.key != "d.a" {
		t.Fatalf("followed %v, want d.a", sp.tables)
	}
	got := sp.st.Tables["d.a"]
	if got == nil || got.Phase != phase || got.MaxTablet <= 0 || !got.Start.IsZero() {
		t.Fatalf("d.a starts as %+v, want phase %s with its highest tablet and no start of its own", got, phase)
	}
	if len(sp.adds)+len(sp.removals) != 0 {
		t.Fatalf("a fresh start has resume changes: adds %v, removals %v", sp.adds, sp.removals)
	}
}

// initial snapshots every table as of the last TSO before the current
// Doris second and starts the chain at the second before, without waiting
// for a whole second: the binlog leaves out what the snapshot holds.
func TestFreshStartInitialStartsTheChainASecondBack(t *testing.T) {
	fr := runFreshStart(t, dorissim.Config{}, &Config{ScanMode: "initial"}, checkpoint.PhaseSnapshot)
	saved, before, sp := fr.saved, fr.before, fr.sp
	if sp.st.Stream == nil || windowplan.BoundOf(sp.st.Stream.Start) != before-1000 && windowplan.BoundOf(sp.st.Stream.Start) != before {
		t.Fatalf("chain %+v, want it to start at the second before %s (or before the next one)", sp.st.Stream, before)
	}
	start := windowplan.BoundOf(sp.st.Stream.Start)
	if x := sp.st.Tables["d.a"].SnapshotTSO; x != doris.LastTSOBefore(start.Ms()+1000) {
		t.Fatalf("d.a is read as of %d, want the last TSO before %s", x, start+1000)
	}
	if len(*saved) != 1 {
		t.Fatalf("%d saves, want the start stored once", len(*saved))
	}
}

func TestFreshStartRejectsAnUnknownScanMode(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{Selection: fixedSelection("d.a"), ScanMode: "earliest"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
	su, _ := e.startup(t)
	if _, err := su.run(testCtx(t)); !isFatal(err) || !strings.Contains(err.Error(), `scan_mode "earliest" is not supported`) {
		t.Fatalf("run = %v, want a fatal error naming the mode", err)
	}
}

// A named table the mode cannot follow stops the input with the reason; a
// matched one is skipped and the others are read; a snapshot needs no binlog.
func TestAdmitAllNamedStopsMatchedSkips(t *testing.T) {
	stmts := []string{"CREATE DATABASE d", "CREATE TABLE d.a" + binlogDDL, "CREATE TABLE d.plain" + plainDDL}
	for _, tc := range []struct {
		name    string
		sel     selection
		mode    string
		want    []string
		skipped int
		fatal   string
	}{
		{"named without binlog", fixedSelection("d.a", "d.plain"), "latest", nil, 0, "d.plain has no row binlog"},
		{"matched without binlog", includeSelection(`^d\.`), "latest", []string{"d.a"}, 1, ""},
		{"snapshot needs none", fixedSelection("d.a", "d.plain"), "snapshot", []string{"d.a", "d.plain"}, 0, ""},
		{"pattern matching nothing", includeSelection(`^x\.`), "latest", nil, 0, ""},
		{"named in no database", fixedSelection("nowhere.t"), "snapshot", nil, 0, "no table to read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSimEnv(t, dorissim.Config{}, &Config{Selection: tc.sel, ScanMode: tc.mode}, stmts...)
			su, _ := e.startup(t)
			skipped := newSkippedTables(e.log)
			tables, err := su.admitAll(testCtx(t), true, skipped)
			if tc.fatal != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fatal) {
					t.Fatalf("admitAll = %v, want an error saying %q", err, tc.fatal)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, tb := range tables {
				keys = append(keys, tb.name.key)
			}
			if !slices.Equal(keys, tc.want) || skipped.count() != tc.skipped {
				t.Fatalf("admitted %v, skipped %d; want %v, %d", keys, skipped.count(), tc.want, tc.skipped)
			}
		})
	}
}

// A resumed position wins over scan_mode; a stored table no longer there
// leaves, a newly matched one joins, at the first run.
func TestResumeReconcilesTheStoredTables(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{Selection: includeSelection(`^d\.`), ScanMode: "snapshot", CheckpointKey: "k"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL, "CREATE TABLE d.b"+binlogDDL)
	stored := checkpoint.New()
	stored.StartChain(ckb("2026-12-01 10:00:00"))
	stored.AddTable("d.a", false, checkpoint.Bound{}, 1)
	stored.AddTable("d.gone", false, checkpoint.Bound{}, 1)
	stored.Stream.Planned = []checkpoint.Bound{ckb("2026-12-01 10:00:05")}
	e.store(t, stored)
	su, saved := e.startup(t)
	sp, err := su.run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if sp.st.Stream == nil || sp.st.Stream.Start != ckb("2026-12-01 10:00:00") || sp.st.Tables["d.gone"] == nil {
		t.Fatalf("resumed at %+v, want the stored position as it was (scan_mode snapshot ignored)", sp.st)
	}
	if !slices.Equal(sp.removals, []string{"d.gone"}) || len(sp.adds) != 1 || sp.adds[0].name.key != "d.b" || len(sp.tables) != 2 {
		t.Fatalf("removals %v, adds %v, %d tables; want d.gone to leave and d.b to join", sp.removals, sp.adds, len(sp.tables))
	}
	// The planned ends live in the planner, not in the position.
	if sp.st.Stream.Planned != nil {
		t.Fatalf("planned ends %v left in the position", sp.st.Stream.Planned)
	}
	if end, ok := su.planned.Next(mustBound(t, "2026-12-01 10:00:00")); !ok || end.String() != "2026-12-01 10:00:05" {
		t.Fatalf("planner's next end %s, %v; want the stored one", end, ok)
	}
	if got, ok := su.del.Committed(); !ok || got.Stream.Start != ckb("2026-12-01 10:00:00") {
		t.Fatalf("delivery restored %+v, %v; want the stored position", got, ok)
	}
	if len(*saved) != 0 {
		t.Fatalf("a plain resume saved %d times, want none", len(*saved))
	}
	if n := len(e.lines.Lines("INFO", "scan_mode snapshot and scan_timestamp are ignored")); n != 1 {
		t.Errorf("%d resume logs, want 1", n)
	}
}

// What this process committed wins over the stored checkpoint, which a
// slower save may not have reached yet.
func TestLoadCommittedPrefersThisProcess(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{Selection: fixedSelection("d.a"), ScanMode: "latest", CheckpointKey: "k"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
	stored := checkpoint.New()
	stored.StartChain(ckb("2026-12-01 10:00:00"))
	stored.AddTable("d.a", false, checkpoint.Bound{}, 1)
	e.store(t, stored)
	su, _ := e.startup(t)
	mine := stored.Clone()
	mine.AdvanceChain(ckb("2026-12-01 10:00:07"))
	if err := su.del.Commit(testCtx(t), mine); err != nil {
		t.Fatal(err)
	}
	sp, err := su.run(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if sp.st.Stream.Start != ckb("2026-12-01 10:00:07") {
		t.Fatalf("started at %s, want this process's commit", sp.st.Stream.Start)
	}
}

// An unreadable checkpoint stops the input and says how to recover; a
// torn primary with an intact backup resumes from the backup, with a warning.
func TestLoadCommittedUnreadableCheckpoint(t *testing.T) {
	e := newSimEnv(t, dorissim.Config{}, &Config{Selection: fixedSelection("d.a"), ScanMode: "latest", CheckpointKey: "k"},
		"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
	setRaw := func(key, val string) {
		if err := e.res.AccessCache(context.Background(), cpCache, func(c service.Cache) {
			_ = c.Set(context.Background(), key, []byte(val), nil)
		}); err != nil {
			t.Fatal(err)
		}
	}
	setRaw("k", "{torn")
	su, _ := e.startup(t)
	_, err := su.run(testCtx(t))
	if !isFatal(err) {
		t.Fatalf("run = %v, want fatal", err)
	}
	for _, want := range []string{"checkpoint_cache cp, key k", "will not guess a position", "delete it (and k.bak)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	good := checkpoint.New()
	good.StartChain(ckb("2026-12-01 10:00:00"))
	good.AddTable("d.a", false, checkpoint.Bound{}, 1)
	e.store(t, good)
	setRaw("k", "{torn")
	su, _ = e.startup(t)
	sp, err := su.run(testCtx(t))
	if err != nil || sp.st.Stream.Start != ckb("2026-12-01 10:00:00") {
		t.Fatalf("run = %+v, %v; want the backup's position", sp, err)
	}
	if n := len(e.lines.Lines("WARN", "Checkpoint key k in cache cp is unreadable")); n != 1 {
		t.Errorf("%d warnings about the torn key, want 1", n)
	}
}

// putFEZoneState writes st under key as a build before window_zone did:
// the same JSON without that field, so its bounds are FE wall times.
func putFEZoneState(t *testing.T, e *simEnv, key string, st *checkpoint.State) {
	t.Helper()
	b, err := checkpoint.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), `"window_zone":"UTC",`, "", 1)
	if old == string(b) {
		t.Fatalf("no window_zone in %s", b)
	}
	var setErr error
	if err := e.res.AccessCache(context.Background(), cpCache, func(c service.Cache) {
		setErr = c.Set(context.Background(), key, []byte(old), nil)
	}); err != nil || setErr != nil {
		t.Fatal(err, setErr)
	}
}

// A stored checkpoint in FE wall times is converted to UTC before the run
// uses it; one carried over from the old default key is also saved under
// the new key at once, so the next start reads it there.
func TestLoadCommittedConvertsAndCarriesOver(t *testing.T) {
	stored := checkpoint.New()
	stored.StartChain(ckb("2026-12-01 10:00:00")) // Berlin, CET
	stored.AddTable("d.a", false, checkpoint.Bound{}, 1)
	for _, carried := range []bool{false, true} {
		e := newSimEnv(t, dorissim.Config{TimeZone: "Europe/Berlin"},
			&Config{Selection: fixedSelection("d.a"), ScanMode: "latest", CheckpointKey: "k"},
			"CREATE DATABASE d", "CREATE TABLE d.a"+binlogDDL)
		key := "k"
		if carried {
			e.conf.LegacyCheckpointKey, key = "old", "old"
		}
		putFEZoneState(t, e, key, stored)
		su, saved := e.startup(t)
		sp, err := su.run(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if sp.st.InFEZone() || sp.st.Stream.Start != ckb("2026-12-01 09:00:00") {
			t.Fatalf("carried %v: resumed at %+v (zone %q), want 09:00:00 UTC", carried, sp.st.Stream, sp.st.WindowZone)
		}
		if got, ok := su.del.Committed(); !ok || got.Stream.Start != ckb("2026-12-01 09:00:00") {
			t.Fatalf("carried %v: delivery restored %+v, want the converted position", carried, got)
		}
		if want := btoi(carried); len(*saved) != want || carried && (*saved)[0].Stream.Start != ckb("2026-12-01 09:00:00") {
			t.Fatalf("carried %v: saves %v, want %d of the converted position", carried, *saved, want)
		}
	}
}
