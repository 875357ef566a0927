package input

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// A skipped table is warned about once, cleared when it can be followed,
// and forgotten when it is no longer listed.
func TestSkippedTablesWarnOnceAndForgetUnlisted(t *testing.T) {
	s := newSkippedTables(service.MockResources().Logger())
	if !s.note("db.a", "no row binlog") {
		t.Fatalf("the first note of db.a did not warn")
	}
	if s.note("db.a", "no row binlog") {
		t.Fatalf("db.a was warned about twice")
	}
	s.note("db.b", "no row binlog")
	if n := s.count(); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
	s.forgetUnlisted(map[string]bool{"db.b": true})
	if n := s.count(); n != 1 {
		t.Fatalf("after db.a left the listing count = %d, want 1", n)
	}
	if !s.note("db.a", "no row binlog") {
		t.Fatalf("db.a came back after it was forgotten and was not warned about")
	}
	s.clear("db.b")
	if n := s.count(); n != 1 || !s.note("db.b", "again") {
		t.Fatalf("a cleared table is still counted as skipped")
	}
}

// One listing that skips many tables warns about the first few with their
// reasons and sums up the rest in one line; each of the rest has its
// reason at debug level.
func TestSkippedTablesWarnAboutTheFirstFewAndSumUpTheRest(t *testing.T) {
	log, lines := captureLogger(t)
	s := newSkippedTables(log)
	var keys []string
	for i := range 8 {
		key := fmt.Sprintf("db.t%d", 7-i) // listed in reverse: the warnings go by name
		s.note(key, "no row binlog")
		keys = append(keys, key)
	}
	s.warn(keys)
	warns := lines.Lines("WARN", "")
	if len(warns) != listedTables+1 {
		t.Fatalf("%d warnings, want %d:\n%s", len(warns), listedTables+1, strings.Join(warns, "\n"))
	}
	for i := range listedTables {
		if want := fmt.Sprintf("Skipping table db.t%d: no row binlog", i); !strings.Contains(warns[i], want) {
			t.Errorf("warning %d is %q, want %q", i, warns[i], want)
		}
	}
	if !strings.Contains(warns[listedTables], "(why each is skipped is logged at debug level): 3 tables: db.t5, db.t6, db.t7") {
		t.Errorf("the summary warning is %q", warns[listedTables])
	}
	for _, key := range []string{"db.t5", "db.t6", "db.t7"} {
		if n := len(lines.Lines("DEBUG", "Skipping table "+key+": no row binlog")); n != 1 {
			t.Errorf("%d debug lines for %s, want 1", n, key)
		}
	}
	s.warn(nil)
	if n := len(lines.Lines("", "")); n != listedTables+1+3 {
		t.Errorf("warning about no tables logged; %d lines in all", n)
	}
}
