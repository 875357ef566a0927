package changes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

func TestHalfPairWarningIsRateLimitedPerTable(t *testing.T) {
	var lines []string
	h := NewHalfPairLog(func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) })
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h.now = func() time.Time { return clock }
	w := Window{Start: "2026-12-01 10:00:00", End: "2026-12-01 10:00:01"}
	half := func(table string, lsn int64) {
		h.Note(table, w, checkpoint.Pos{TSO: 7, LSN: lsn, Op: 2}, "no update_after follows it")
	}

	half("db.a", 1)
	half("db.a", 2)
	half("db.b", 1) // another table has its own allowance
	clock = clock.Add(30 * time.Second)
	half("db.a", 3)
	if len(lines) != 2 {
		t.Fatalf("got %d warnings within a minute, want one per table:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	clock = clock.Add(31 * time.Second)
	half("db.a", 4)
	if len(lines) != 3 {
		t.Fatalf("got %d warnings after the minute, want 3", len(lines))
	}
	last := lines[2]
	for _, want := range []string{"window [2026-12-01 10:00:00, 2026-12-01 10:00:01) of db.a", "LSN 4", "update_before", "2 more half(s)", "doris_binlog_unpaired_updates_total"} {
		if !strings.Contains(last, want) {
			t.Errorf("warning %q lacks %q", last, want)
		}
	}
	if !strings.Contains(lines[0], "0 more half(s)") || !strings.Contains(lines[1], "of db.b") {
		t.Errorf("first warnings: %q", lines[:2])
	}
}
