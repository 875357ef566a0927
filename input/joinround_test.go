package input

import (
	"fmt"
	"strings"
	"testing"
)

// A start's round of 40 snapshots logs a line at each tenth and one at the
// end naming the first few tables, and nothing about catch-ups when no
// table catches up.
func TestJoinRoundLogsTenthsAndTheEndOfItsSnapshots(t *testing.T) {
	log, lines := captureLogger(t)
	r := newJoinRound(log)
	for i := range 40 {
		r.add(fmt.Sprintf("d.t%02d", i), true, false)
	}
	r.seal()
	for i := range 40 {
		key := fmt.Sprintf("d.t%02d", i)
		r.snapshotDone(key, 2)
		r.joined(key)
	}
	info := lines.Lines("INFO", "")
	if len(info) != 10 {
		t.Fatalf("%d info lines for 40 snapshots, want 9 tenths and the end:\n%s", len(info), strings.Join(info, "\n"))
	}
	if !strings.Contains(info[0], "Snapshots: 4 of 40 tables finished, 8 splits so far") {
		t.Errorf("first progress line %q", info[0])
	}
	if !strings.Contains(info[9], `Snapshots finished (80 splits): 40 tables: d.t00, d.t01, d.t02, d.t03, d.t04 and 35 more"`) {
		t.Errorf("end line %q", info[9])
	}
}

// A discovery adds its tables one by one, and each may finish its snapshot
// before the next is added: the round's end lines wait for the seal, and
// the catch-ups are summed up once all joined. A table that leaves does not
// hold the round up.
func TestJoinRoundWaitsForTheSealAndForEveryCatchUp(t *testing.T) {
	log, lines := captureLogger(t)
	r := newJoinRound(log)
	for _, key := range []string{"d.c", "d.b", "d.a"} {
		r.add(key, true, true)
		r.snapshotDone(key, 1)
	}
	r.add("d.gone", true, true)
	if n := len(lines.Lines("INFO", "")); n != 0 {
		t.Fatalf("%d info lines before the seal, want none:\n%s", n, strings.Join(lines.Lines("INFO", ""), "\n"))
	}
	r.seal()
	if n := len(lines.Lines("INFO", "Snapshots finished")); n != 0 {
		t.Fatalf("the snapshots were told finished while d.gone's was going on")
	}
	r.left("d.gone")
	want := "Snapshots finished (3 splits): 3 tables: d.a, d.b, d.c; they catch up on their own binlog next"
	if n := len(lines.Lines("INFO", want)); n != 1 {
		t.Fatalf("%d lines %q:\n%s", n, want, strings.Join(lines.Lines("", ""), "\n"))
	}
	r.joined("d.a")
	r.joined("d.b")
	if n := len(lines.Lines("INFO", "Caught up")); n != 0 {
		t.Fatalf("the catch-ups were told finished while d.c's was going on")
	}
	r.joined("d.c")
	want = "Caught up on their own binlog and joined the shared windows: 3 tables: d.a, d.b, d.c"
	if n := len(lines.Lines("INFO", want)); n != 1 {
		t.Fatalf("%d lines %q:\n%s", n, want, strings.Join(lines.Lines("", ""), "\n"))
	}
	if n := len(lines.Lines("INFO", "")); n != 2 {
		t.Fatalf("%d info lines, want the two ends:\n%s", n, strings.Join(lines.Lines("INFO", ""), "\n"))
	}

	// Tables outside a round (added by a test, or with no round open) log
	// nothing and do not fail.
	var none *joinRound
	none.add("d.x", true, true)
	none.snapshotDone("d.x", 1)
	none.joined("d.x")
	none.left("d.x")
	none.seal()
}
