package input

import (
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
