package dorissim

import (
	"strings"
	"testing"
)

// groupTable creates a DUP table whose group commit batches close only by
// size (the interval is an hour), so a test decides when a batch commits.
func groupTable(t *testing.T, s *Server, name, bytes string) {
	t.Helper()
	mustExecAll(t, s, "CREATE DATABASE IF NOT EXISTS sales", `CREATE TABLE sales.`+name+` (id BIGINT, v VARCHAR(16))
DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW",
  "group_commit_interval_ms" = "3600000", "group_commit_data_bytes" = "`+bytes+`")`)
}

// TestAcceptanceGroupCommitAsync checks async_mode: loads answer at once
// with GroupCommit true and the shared group_commit_ label and txn, their
// rows become visible together when the batch commits, under one TSO.
func TestAcceptanceGroupCommitAsync(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	groupTable(t, s, "gc", "20")
	clock.Set(at("10:01:00"))
	a := loadInto(t, s, "sales", "gc", strings.NewReader("1\ta\n2\tb\n"), map[string]string{"group_commit": "async_mode"})
	wantFields(t, "first async load", a, map[string]any{"Status": "Success", "GroupCommit": true, "NumberLoadedRows": 2.0, "Message": "OK"})
	label, _ := a["Label"].(string)
	if !strings.HasPrefix(label, "group_commit_") || len(label) != len("group_commit_")+33 {
		t.Errorf("group commit label %q", label)
	}
	for _, k := range []string{"TwoPhaseCommit", "BeginTxnTimeMs", "CommitAndPublishTimeMs"} {
		if _, ok := a[k]; ok {
			t.Errorf("group commit answer has %s: %v", k, a)
		}
	}
	if n := countRows(t, s, "sales.gc"); n != "0" {
		t.Errorf("async rows visible before the batch commits: %s", n)
	}
	if st := loadState(t, s, "sales", label); st != "PREPARE" {
		t.Errorf("group commit label state %s, want PREPARE", st)
	}
	clock.Set(at("10:02:00"))
	b := loadInto(t, s, "sales", "gc", strings.NewReader("3\tc\n4\td\n5\te\n"), map[string]string{"group_commit": "ASYNC_MODE"})
	wantFields(t, "second async load", b, map[string]any{"Status": "Success", "GroupCommit": true, "Label": label, "TxnId": a["TxnId"]})
	// The second load filled the batch (20 bytes), which committed it.
	if n := countRows(t, s, "sales.gc"); n != "5" {
		t.Errorf("rows after the batch committed: %s, want 5", n)
	}
	if st := loadState(t, s, "sales", label); st != "VISIBLE" {
		t.Errorf("group commit label state %s, want VISIBLE", st)
	}
	clock.Set(at("10:03:00"))
	rows, err := mysqlText(testCtx(t), mysqlConn(t, s), "SELECT COUNT(DISTINCT __DORIS_BINLOG_TSO__), COUNT(*) FROM sales.gc@incr("+
		"'startTimestamp' = '2026-09-14 10:00:00', 'endTimestamp' = '2026-09-14 10:02:30', 'incrementType' = 'APPEND_ONLY')")
	if err != nil || len(rows) != 1 || rows[0][0] != "1" || rows[0][1] != "5" {
		t.Errorf("binlog of the batch: %v (%v), want one TSO for 5 records", rows, err)
	}
}

// TestAcceptanceGroupCommitModes checks sync_mode (visible on return), the
// refusal of a user label and of an unknown mode, and that a 2PC load with
// group_commit falls back to an ordinary load, as Doris does.
func TestAcceptanceGroupCommitModes(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s, "CREATE DATABASE sales", `CREATE TABLE sales.gs (id BIGINT, v VARCHAR(16))
DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("group_commit_interval_ms" = "50")`)
	sync := loadInto(t, s, "sales", "gs", strings.NewReader("1\ta\n"), map[string]string{"group_commit": "sync_mode"})
	wantFields(t, "sync load", sync, map[string]any{"Status": "Success", "GroupCommit": true, "NumberLoadedRows": 1.0})
	if n := countRows(t, s, "sales.gs"); n != "1" {
		t.Errorf("sync_mode rows not visible on return: %s", n)
	}
	labeled := loadInto(t, s, "sales", "gs", strings.NewReader("2\tb\n"), map[string]string{"group_commit": "async_mode", "label": "mine"})
	wantFields(t, "label with group commit", labeled, map[string]any{"Status": "Fail", "Label": "mine", "TwoPhaseCommit": "false", "TxnId": -1.0,
		"Message": "[INVALID_ARGUMENT]label and group_commit can't be set at the same time"})
	odd := loadInto(t, s, "sales", "gs", strings.NewReader("2\tb\n"), map[string]string{"group_commit": "true"})
	wantFields(t, "unknown mode", odd, map[string]any{"Status": "Fail",
		"Message": "[INVALID_ARGUMENT]group_commit can only be [async_mode, sync_mode, off_mode]"})
	twoPC := loadInto(t, s, "sales", "gs", strings.NewReader("3\tc\n"),
		map[string]string{"group_commit": "async_mode", "two_phase_commit": "true", "label": "gc-2pc"})
	wantFields(t, "2PC with group commit", twoPC, map[string]any{"Status": "Success", "TwoPhaseCommit": "true", "Label": "gc-2pc"})
	if _, ok := twoPC["GroupCommit"]; ok {
		t.Errorf("2PC load went through group commit: %v", twoPC)
	}
	off := loadInto(t, s, "sales", "gs", strings.NewReader("4\td\n"), map[string]string{"group_commit": "off_mode", "label": "gc-off"})
	wantFields(t, "off_mode", off, map[string]any{"Status": "Success", "Label": "gc-off", "TwoPhaseCommit": "false"})
	if n := countRows(t, s, "sales.gs"); n != "2" {
		t.Errorf("rows: %s, want 2 (the 2PC load is not committed)", n)
	}
}
