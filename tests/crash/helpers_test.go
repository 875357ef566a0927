package crash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const binlogLine = `{"meta":{"operation":"insert","doris_phase":"binlog","database":"crash","table":"t1","doris_tso":7,"doris_lsn":1,"doris_op":0,"commit_ts_ms":0,"doris_window_start":"2026-01-01 00:00:00","doris_window_end":"2026-01-01 00:00:01"},"row":{"id":1,"amount":1.50}}`
const snapLine = `{"meta":{"operation":"read","doris_phase":"snapshot","database":"crash","table":"t1"},"row":{"id":2,"name":null}}`

func TestReadOutputDropsOnlyATornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(snapLine + "\n" + binlogLine + "\n" + binlogLine[:40])
	evs, torn, err := readOutput(path, true)
	if err != nil || !torn || len(evs) != 2 {
		t.Fatalf("killed run: %d events, torn %v, err %v", len(evs), torn, err)
	}
	if evs[1].Pos() != [3]int64{7, 1, 0} || evs[1].WindowEnd != "2026-01-01 00:00:01" || evs[0].Operation != "read" {
		t.Fatalf("parsed %+v", evs)
	}
	if _, _, err := readOutput(path, false); err == nil {
		t.Fatal("a torn last line after a clean stop was accepted")
	}
	write(binlogLine[:40] + "\n" + binlogLine + "\n")
	if _, _, err := readOutput(path, true); err == nil {
		t.Fatal("a broken line before the last was accepted")
	}
}

func TestParseLineWantsTypedPositions(t *testing.T) {
	bad := strings.Replace(binlogLine, `"doris_tso":7`, `"doris_tso":"7"`, 1)
	if _, err := parseLine([]byte(bad)); err == nil {
		t.Fatal("a string doris_tso was accepted")
	}
	ev, err := parseLine([]byte(binlogLine))
	if err != nil {
		t.Fatal(err)
	}
	if got := harness.SortDedupe([]harness.Event{ev, ev}); len(got) != 1 {
		t.Fatalf("dedupe kept %d", len(got))
	}
}

func TestSnapshotDuplicatesCountsRepeatedKeys(t *testing.T) {
	ev := func(phase string, id int) harness.Event {
		return harness.Event{Phase: phase, Row: map[string]any{"id": id}}
	}
	evs := []harness.Event{ev("snapshot", 1), ev("snapshot", 2), ev("snapshot", 1), ev("binlog", 1), ev("snapshot", 1)}
	if n := snapshotDuplicates(evs); n != 2 {
		t.Fatalf("snapshotDuplicates = %d, want 2", n)
	}
}

func TestTearPrimaryNeedsAnIntactBackup(t *testing.T) {
	dir := t.TempDir()
	st := &checkpoint.State{Stream: &checkpoint.Window{Start: "2026-01-01 00:00:00"},
		Tables: map[string]*checkpoint.Table{"crash.t1": {Phase: checkpoint.PhaseSnapshot}}, Seq: 3, SavedAt: time.Now().UTC()}
	b, err := checkpoint.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	path := checkpointPath(dir, db, "t1")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tearPrimary(dir, db, "t1", true); err == nil {
		t.Fatal("tore the primary with no backup")
	}
	if err := os.WriteFile(path+checkpoint.BackupSuffix, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tearPrimary(dir, db, "t1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := readCopy(path); err == nil {
		t.Fatal("the half-written primary still decodes")
	}
	if got := storedState(dir, db, "t1"); got == nil || got.Seq != 3 {
		t.Fatalf("storedState after the tear = %+v, want the backup", got)
	}
}
