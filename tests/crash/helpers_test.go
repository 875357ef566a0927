package crash

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
	"github.com/rpconnect-doris/rpconnect-doris/tests/harness"
)

const binlogLine = `{"meta":{"operation":"insert","database_schema":"crash","table":"t1","tso":7,"lsn":1,"commit_ts_ms":0,"source_ts_ms":0,"transaction_id":"7","doris_window_start":"2026-01-01 00:00:00","doris_window_end":"2026-01-01 00:00:01"},"row":{"id":1,"amount":1.50}}`
const snapLine = `{"meta":{"operation":"read","database_schema":"crash","table":"t1"},"row":{"id":2,"name":null}}`

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
	bad := strings.Replace(binlogLine, `"tso":7`, `"tso":"7"`, 1)
	if _, err := parseLine([]byte(bad)); err == nil {
		t.Fatal("a string tso was accepted")
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
	start, err := checkpoint.ParseBound("2026-01-01 00:00:00")
	if err != nil {
		t.Fatal(err)
	}
	st := &checkpoint.State{WindowZone: checkpoint.WindowZoneUTC, Stream: &checkpoint.Window{Start: start},
		Tables: map[string]*checkpoint.Table{"crash.t1": {Phase: checkpoint.PhaseSnapshot}}, Seq: 3, SavedAt: time.Now().UTC()}
	b, err := checkpoint.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	path := checkpointPath(dir)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tearPrimary(dir, true); err == nil {
		t.Fatal("tore the primary with no backup")
	}
	if err := os.WriteFile(path+checkpoint.BackupSuffix, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tearPrimary(dir, true); err != nil {
		t.Fatal(err)
	}
	if _, err := readCopy(path); err == nil {
		t.Fatal("the half-written primary still decodes")
	}
	if got := storedState(dir); got == nil || got.Seq != 3 {
		t.Fatalf("storedState after the tear = %+v, want the backup", got)
	}
}

func TestOrderCheckFindsSplitTransactionsAndSparesCatchUp(t *testing.T) {
	ev := func(table string, tso, lsn int64, id int, end string) harness.Event {
		return harness.Event{Phase: "binlog", Operation: "insert", Database: db, Table: table, TSO: tso, LSN: lsn,
			WindowStart: "2026-01-01 00:00:00", WindowEnd: end, Row: map[string]any{"id": id}}
	}
	const chainEnd, catchEnd = "2026-01-01 00:00:09", "2026-01-01 00:00:05"
	oc := &orderCheck{late: "t9", catchUpEnd: catchEnd, txns: []txnRecord{{keys: map[string]int64{"t1": 1, "t2": 1}}}}
	whole := []harness.Event{ev("t1", 10, 1, 1, chainEnd), ev("t2", 10, 1, 1, chainEnd), ev("t1", 20, 2, 2, chainEnd),
		// A late table's catch-up may bring older TSOs after newer chain events.
		ev("t9", 5, 1, 1, catchEnd), ev("t9", 30, 2, 2, chainEnd)}
	of := oc.check([][]harness.Event{whole})
	if len(of.problems) != 0 || of.checked != 1 {
		t.Fatalf("in-order output: checked %d, problems %v", of.checked, of.problems)
	}
	cut, ok := splitTransaction(whole)
	if !ok {
		t.Fatal("splitTransaction found no transaction")
	}
	if of := oc.check([][]harness.Event{cut}); len(of.problems) == 0 {
		t.Fatalf("a split transaction was not reported: %+v", cut)
	}
	late := append(slices.Clone(whole[:3]), ev("t9", 5, 1, 1, chainEnd))
	if of := oc.check([][]harness.Event{late}); len(of.problems) == 0 {
		t.Fatal("an older TSO in the shared chain was not reported")
	}
}

func TestLogLinesMatchTheInputsWording(t *testing.T) {
	line := `time="x" level=warn msg="Snapshot split 0003 of crash.t1 (tablets [10011]) failed, re-reading it from its start (attempt 2 of 3): EOF"`
	if !tableLine(splitRetryLine, "t1").MatchString(line) || tableLine(splitRetryLine, "t2").MatchString(line) {
		t.Fatal("splitRetryLine does not tell the split retry of crash.t1")
	}
	join := `msg="Table crash.t4 joins the stream: snapshot, 0 tablets done, its binlog from 2026-12-01 11:18:44"`
	if m := tableLine(joinLine, "t4").FindStringSubmatch(join); m == nil || m[1] != "2026-12-01 11:18:44" {
		t.Fatalf("joinLine: %v", m)
	}
	cu := `msg="Table crash.t4 catches up on its binlog [2026-12-01 11:18:44, 2026-12-01 11:18:47) before joining the shared windows"`
	if m := tableLine(catchUpLine, "t4").FindStringSubmatch(cu); m == nil || m[2] != "2026-12-01 11:18:47" {
		t.Fatalf("catchUpLine: %v", m)
	}
}
