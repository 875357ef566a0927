package input

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

func catalogEnv(t *testing.T, sel selection, mode string) *simEnv {
	return newSimEnv(t, dorissim.Config{}, &Config{Selection: sel, ScanMode: mode},
		"CREATE DATABASE d", "CREATE DATABASE e",
		"CREATE TABLE d.a"+binlogDDL, "CREATE TABLE d.b"+binlogDDL, "CREATE TABLE e.x"+binlogDDL, "CREATE TABLE d.plain"+plainDDL)
}

func candidateKeys(t *testing.T, e *simEnv) []string {
	t.Helper()
	names, err := e.cat.candidates(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, n := range names {
		keys = append(keys, n.key)
	}
	return keys
}

// A fixed list reads only its own databases; a named table (or database)
// that is not there is left out, so a dropped one leaves the stream; the
// result is in name order whatever the config's order.
func TestCandidatesOfAFixedList(t *testing.T) {
	e := catalogEnv(t, fixedSelection("e.x", "d.a", "d.missing", "gone.t"), "latest")
	if got, want := candidateKeys(t, e), []string{"d.a", "e.x"}; !slices.Equal(got, want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
}

// Patterns look at every database; exclude takes tables back out.
func TestCandidatesOfPatterns(t *testing.T) {
	sel := selection{
		include: []*regexp.Regexp{regexp.MustCompile(`^d\.`), regexp.MustCompile(`^e\.x$`)},
		exclude: []*regexp.Regexp{regexp.MustCompile(`^d\.b$`)},
	}
	e := catalogEnv(t, sel, "latest")
	if got, want := candidateKeys(t, e), []string{"d.a", "d.plain", "e.x"}; !slices.Equal(got, want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
	e.exec(t, "DROP DATABASE e")
	if got, want := candidateKeys(t, e), []string{"d.a", "d.plain"}; !slices.Equal(got, want) {
		t.Fatalf("after DROP DATABASE e: candidates %v, want %v", got, want)
	}
}

// A listing that fails is an error, never an empty selection: an empty
// one would drop every table from the checkpoint.
func TestCandidatesFailWhenTheFEIsDown(t *testing.T) {
	for _, sel := range []selection{fixedSelection("d.a"), includeSelection(`^d\.`)} {
		e := catalogEnv(t, sel, "latest")
		e.srv.SetFaults(dorissim.Faults{Refuse: "http", RefuseFor: time.Minute})
		if names, err := e.cat.candidates(testCtx(t)); err == nil {
			t.Errorf("%s with the FE down: %v and no error", sel.canonical(), names)
		}
	}
}

// admit reads a table's DDL and says whether the mode can follow it.
func TestAdmit(t *testing.T) {
	e := catalogEnv(t, includeSelection(`^d\.`), "latest")
	ctx := testCtx(t)
	tb, problem, err := e.cat.admit(ctx, newTableName("d", "a"))
	if err != nil || problem != "" || tb == nil || tb.props == nil || tb.name.key != "d.a" {
		t.Fatalf("binlog table: %+v, %q, %v; want it admitted with its DDL read", tb, problem, err)
	}
	tb, problem, err = e.cat.admit(ctx, newTableName("d", "plain"))
	if err != nil || tb != nil || !strings.Contains(problem, "d.plain has no row binlog") {
		t.Fatalf("table without binlog: %+v, %q, %v; want the problem naming it", tb, problem, err)
	}
	if _, _, err := e.cat.admit(ctx, newTableName("d", "missing")); err == nil {
		t.Fatalf("a binlog mode admitted a table whose DDL it could not read")
	}
}

// A snapshot needs the DDL only for DATETIME digits: it reads on without
// it, with a warning, and needs no binlog.
func TestAdmitSnapshotWithoutDDL(t *testing.T) {
	e := catalogEnv(t, includeSelection(`^d\.`), "snapshot")
	ctx := testCtx(t)
	tb, problem, err := e.cat.admit(ctx, newTableName("d", "plain"))
	if err != nil || problem != "" || tb == nil {
		t.Fatalf("snapshot of a table without binlog: %+v, %q, %v; want it admitted", tb, problem, err)
	}
	tb, problem, err = e.cat.admit(ctx, newTableName("d", "missing"))
	if err != nil || problem != "" || tb == nil || tb.props != nil {
		t.Fatalf("snapshot without DDL: %+v, %q, %v; want it admitted without properties", tb, problem, err)
	}
	if n := len(e.lines.Lines("WARN", "Reading SHOW CREATE TABLE of d.missing failed")); n != 1 {
		t.Fatalf("%d warnings naming d.missing, want 1", n)
	}
}

// A database whose table listing fails and that the FE no longer lists
// has no tables: a dropped database leaves the stream instead of stopping
// it. (A name Doris cannot hold makes the listing fail here; in production
// it is a database dropped between the two requests.)
func TestListTablesOfAVanishedDatabase(t *testing.T) {
	e := catalogEnv(t, fixedSelection("d.a"), "latest")
	e.conf.Selection.fixed = append(e.conf.Selection.fixed, newTableName("gone\x00", "t"))
	if _, err := doris.ListTables(testCtx(t), e.c.rest, "gone\x00"); err == nil {
		t.Fatalf("the listing of an impossible database name did not fail; the test needs a failing listing")
	}
	if got, want := candidateKeys(t, e), []string{"d.a"}; !slices.Equal(got, want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
}
