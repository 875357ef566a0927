package dorissim

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// ordersTable creates sales.<name> as the acceptance orders table (UNIQUE
// MoW with row binlog and before-images).
func ordersTable(t *testing.T, s *Server, name string) {
	t.Helper()
	mustExecAll(t, s, "CREATE DATABASE IF NOT EXISTS sales", strings.Replace(acceptOrdersDDL, "sales.orders", "sales."+name, 1))
}

// binlogOps lists the table's DETAIL records in the window as
// "tso-physical-ms order_id op".
func binlogOps(t *testing.T, s *Server, table, from, to string) []string {
	t.Helper()
	q := fmt.Sprintf("SELECT __DORIS_BINLOG_TSO__ >> 18, order_id, __DORIS_BINLOG_OP__ FROM sales.%s@incr('startTimestamp' = '%s', "+
		"'endTimestamp' = '%s', 'incrementType' = 'DETAIL') ORDER BY __DORIS_BINLOG_TSO__, __DORIS_BINLOG_LSN__", table, from, to)
	rows, err := mysqlText(testCtx(t), mysqlConn(t, s), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, " ")
	}
	return out
}

// TestAcceptanceStreamLoadLabels checks Doris's label rules: a label that
// loaded answers "Label Already Exists" / FINISHED with the FE's message
// and loads nothing; a failed load's label is ABORTED and reusable;
// get_load_state reports each; a label outside Doris's pattern is refused.
func TestAcceptanceStreamLoadLabels(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	ordersTable(t, s, "lb")
	first := loadInto(t, s, "sales", "lb", strings.NewReader("1\tnew\t1.00\n2\tnew\t2.00\n"),
		map[string]string{"label": "batch-1", "comment": "first batch"})
	wantFields(t, "first load", first, map[string]any{"Status": "Success", "Message": "OK", "Label": "batch-1",
		"Comment": "first batch", "TwoPhaseCommit": "false", "NumberTotalRows": 2.0, "NumberLoadedRows": 2.0,
		"NumberFilteredRows": 0.0, "NumberUnselectedRows": 0.0, "LoadBytes": 22.0})
	for _, k := range []string{"TxnId", "LoadTimeMs", "BeginTxnTimeMs", "StreamLoadPutTimeMs", "ReadDataTimeMs", "WriteDataTimeMs", "CommitAndPublishTimeMs"} {
		if _, ok := first[k]; !ok {
			t.Errorf("success answer lacks %s: %v", k, first)
		}
	}
	if _, ok := first["ErrorURL"]; ok {
		t.Errorf("ErrorURL without filtered rows: %v", first)
	}
	again := loadInto(t, s, "sales", "lb", strings.NewReader("3\tnew\t3.00\n"), map[string]string{"label": "batch-1"})
	wantFields(t, "repeated label", again, map[string]any{"Status": "Label Already Exists", "ExistingJobStatus": "FINISHED",
		"TxnId": -1.0, "Label": "batch-1", "NumberLoadedRows": 0.0,
		"Message": fmt.Sprintf("[LABEL_ALREADY_EXISTS]TStatus: errCode = 2, detailMessage = Label [batch-1] has already been used, relate to txn [%v]", first["TxnId"])})
	if n := countRows(t, s, "sales.lb"); n != "2" {
		t.Errorf("repeated label loaded rows: count %s, want 2", n)
	}
	if st := loadState(t, s, "sales", "batch-1"); st != "VISIBLE" {
		t.Errorf("get_load_state batch-1 = %s, want VISIBLE", st)
	}
	if st := loadState(t, s, "sales", "never-used"); st != "UNKNOWN" {
		t.Errorf("get_load_state never-used = %s, want UNKNOWN", st)
	}
	bad := loadInto(t, s, "sales", "lb", strings.NewReader("x\tnew\t1.00\n"), map[string]string{"label": "batch-2"})
	wantFields(t, "bad data", bad, map[string]any{"Status": "Fail"})
	if st := loadState(t, s, "sales", "batch-2"); st != "ABORTED" {
		t.Errorf("get_load_state after a failed load = %s, want ABORTED", st)
	}
	retry := loadInto(t, s, "sales", "lb", strings.NewReader("3\tnew\t3.00\n"), map[string]string{"label": "batch-2"})
	wantFields(t, "reused aborted label", retry, map[string]any{"Status": "Success", "NumberLoadedRows": 1.0})
	badLabel := loadInto(t, s, "sales", "lb", strings.NewReader("4\tnew\t4.00\n"), map[string]string{"label": "no spaces allowed"})
	wantFields(t, "bad label", badLabel, map[string]any{"Status": "Fail"})
	wantContains(t, "bad label", badLabel["Message"], "Label format error. regex: ^[-_A-Za-z0-9:]{1,128}$, label: no spaces allowed")
	auto := loadInto(t, s, "sales", "lb", strings.NewReader("5\tnew\t5.00\n"), nil)
	if l, _ := auto["Label"].(string); auto["Status"] != "Success" || len(l) != 36 || strings.Count(l, "-") != 4 {
		t.Errorf("load without label: want a generated UUID label, got %v", auto)
	}
}

// TestAcceptanceStreamLoadLabelRunning checks a load still receiving its
// body: its label is PREPARE, and a second load with it answers
// ExistingJobStatus RUNNING; the first then completes.
func TestAcceptanceStreamLoadLabelRunning(t *testing.T) {
	s := startSim(t, Config{})
	ordersTable(t, s, "lr")
	body, feed := io.Pipe()
	done := make(chan map[string]any, 1)
	go func() { done <- loadInto(t, s, "sales", "lr", body, map[string]string{"label": "slow-1"}) }()
	deadline := time.Now().Add(20 * time.Second)
	for loadState(t, s, "sales", "slow-1") != "PREPARE" {
		if time.Now().After(deadline) {
			t.Fatal("the first load's label never became PREPARE")
		}
		time.Sleep(10 * time.Millisecond)
	}
	second := loadInto(t, s, "sales", "lr", strings.NewReader("9\tx\t9.00\n"), map[string]string{"label": "slow-1"})
	wantFields(t, "label of a running load", second, map[string]any{"Status": "Label Already Exists", "ExistingJobStatus": "RUNNING"})
	wantContains(t, "label of a running load", second["Message"], "Label [slow-1] has already been used, relate to txn [")
	if _, err := io.WriteString(feed, "1\tslow\t1.00\n"); err != nil {
		t.Fatal(err)
	}
	feed.Close()
	wantFields(t, "first load", <-done, map[string]any{"Status": "Success", "NumberLoadedRows": 1.0})
	if n := countRows(t, s, "sales.lr"); n != "1" {
		t.Errorf("rows after both loads: %s, want 1", n)
	}
}

// TestAcceptanceStreamLoadTwoPhaseCommit checks two_phase_commit: rows and
// binlog records appear only at commit, all under the commit's TSO; abort
// discards; _stream_load_2pc answers with Doris's texts.
func TestAcceptanceStreamLoadTwoPhaseCommit(t *testing.T) {
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	ordersTable(t, s, "tp")
	clock.Set(at("10:01:00"))
	pre := loadInto(t, s, "sales", "tp", strings.NewReader("1\ta\t1.00\n2\tb\t2.00\n"),
		map[string]string{"label": "tp-1", "two_phase_commit": "true"})
	wantFields(t, "pre-commit", pre, map[string]any{"Status": "Success", "TwoPhaseCommit": "true", "NumberLoadedRows": 2.0})
	id, _ := pre["TxnId"].(float64)
	if id <= 0 {
		t.Fatalf("pre-commit without TxnId: %v", pre)
	}
	txn := fmt.Sprint(int64(id))
	if n := countRows(t, s, "sales.tp"); n != "0" {
		t.Errorf("pre-committed rows visible: count %s", n)
	}
	if st := loadState(t, s, "sales", "tp-1"); st != "PRECOMMITTED" {
		t.Errorf("get_load_state = %s, want PRECOMMITTED", st)
	}
	dup := loadInto(t, s, "sales", "tp", strings.NewReader("3\tc\t3.00\n"), map[string]string{"label": "tp-1"})
	wantFields(t, "label of a pre-committed load", dup, map[string]any{"Status": "Label Already Exists", "ExistingJobStatus": "PRECOMMITTED"})
	clock.Set(at("10:03:00"))
	if ops := binlogOps(t, s, "tp", "2026-09-14 10:00:00", "2026-09-14 10:02:59"); len(ops) != 0 {
		t.Errorf("binlog records before commit: %v", ops)
	}
	wantFields(t, "commit", txn2PC(t, s, "sales", map[string]string{"txn_id": txn, "txn_operation": "commit"}),
		map[string]any{"status": "Success", "msg": "transaction [" + txn + "] commit successfully."})
	if n := countRows(t, s, "sales.tp"); n != "2" {
		t.Errorf("rows after commit: %s, want 2", n)
	}
	clock.Set(at("10:05:00"))
	commitMs := fmt.Sprint(at("10:03:00").UnixMilli())
	want := []string{commitMs + " 1 0", commitMs + " 2 0"}
	if ops := binlogOps(t, s, "tp", "2026-09-14 10:00:00", "2026-09-14 10:04:00"); strings.Join(ops, ",") != strings.Join(want, ",") {
		t.Errorf("binlog after commit:\n got %v\nwant %v (one TSO, the commit's)", ops, want)
	}
	wantFields(t, "commit again", txn2PC(t, s, "sales", map[string]string{"txn_id": txn, "txn_operation": "commit"}),
		map[string]any{"status": "ANALYSIS_ERROR", "msg": "TStatus: errCode = 2, detailMessage = transaction [" + txn + "] is already visible, not pre-committed."})
	wantFields(t, "abort committed", txn2PC(t, s, "sales", map[string]string{"txn_id": txn, "txn_operation": "abort"}),
		map[string]any{"status": "ANALYSIS_ERROR", "msg": "TStatus: errCode = 2, detailMessage = transaction [" + txn + "] is already VISIBLE, could not abort."})
	if st := loadState(t, s, "sales", "tp-1"); st != "VISIBLE" {
		t.Errorf("get_load_state after commit = %s, want VISIBLE", st)
	}

	pre2 := loadInto(t, s, "sales", "tp", strings.NewReader("5\te\t5.00\n"), map[string]string{"label": "tp-2", "two_phase_commit": "true"})
	txn2 := fmt.Sprint(int64(pre2["TxnId"].(float64)))
	wantFields(t, "abort by label", txn2PC(t, s, "sales", map[string]string{"label": "tp-2", "txn_operation": "abort"}),
		map[string]any{"status": "Success", "msg": "label [tp-2] abort successfully."})
	if st := loadState(t, s, "sales", "tp-2"); st != "ABORTED" {
		t.Errorf("get_load_state after abort = %s, want ABORTED", st)
	}
	wantFields(t, "commit aborted", txn2PC(t, s, "sales", map[string]string{"txn_id": txn2, "txn_operation": "commit"}),
		map[string]any{"status": "ANALYSIS_ERROR", "msg": "TStatus: errCode = 2, detailMessage = transaction [" + txn2 + "] is already aborted. abort reason: User Abort"})
	wantFields(t, "abort aborted", txn2PC(t, s, "sales", map[string]string{"txn_id": txn2, "txn_operation": "abort"}),
		map[string]any{"status": "ANALYSIS_ERROR", "msg": "TStatus: errCode = 2, detailMessage = transaction [" + txn2 + "] is already aborted, abort reason: User Abort"})
	wantFields(t, "commit by label of aborted", txn2PC(t, s, "sales", map[string]string{"label": "tp-2", "txn_operation": "commit"}),
		map[string]any{"status": "ANALYSIS_ERROR", "msg": "TStatus: errCode = 2, detailMessage = running transaction not found, label=tp-2"})
	wantFields(t, "unknown txn", txn2PC(t, s, "sales", map[string]string{"txn_id": "999999", "txn_operation": "commit"}),
		map[string]any{"status": "ANALYSIS_ERROR", "msg": "TStatus: errCode = 2, detailMessage = transaction [999999] not found"})
	wantFields(t, "unknown label", txn2PC(t, s, "sales", map[string]string{"label": "nope", "txn_operation": "abort"}),
		map[string]any{"status": "ANALYSIS_ERROR", "msg": "TStatus: errCode = 2, detailMessage = transaction not found, label=nope"})
	wantFields(t, "no operation", txn2PC(t, s, "sales", map[string]string{"txn_id": txn}),
		map[string]any{"status": "FAILED", "msg": "No transaction operation('commit' or 'abort') selected."})
	wantFields(t, "no txn", txn2PC(t, s, "sales", map[string]string{"txn_operation": "commit"}),
		map[string]any{"status": "FAILED", "msg": "No transaction id or label selected."})
	wantFields(t, "bad operation", txn2PC(t, s, "sales", map[string]string{"txn_id": txn, "txn_operation": "rollback"}),
		map[string]any{"status": "INTERNAL_ERROR", "msg": "transaction operation should be 'commit' or 'abort'"})
	if n := countRows(t, s, "sales.tp"); n != "2" {
		t.Errorf("aborted rows visible: count %s, want 2", n)
	}
	reuse := loadInto(t, s, "sales", "tp", strings.NewReader("6\tf\t6.00\n"), map[string]string{"label": "tp-2"})
	wantFields(t, "reuse aborted 2PC label", reuse, map[string]any{"Status": "Success"})
}

// TestAcceptanceStreamLoadErrorURL checks filtered rows: within
// max_filter_ratio the load succeeds with an ErrorURL listing them; beyond
// it the load fails, loads nothing and still gives the ErrorURL.
func TestAcceptanceStreamLoadErrorURL(t *testing.T) {
	s := startSim(t, Config{})
	ordersTable(t, s, "eu")
	ok := loadInto(t, s, "sales", "eu", strings.NewReader("1\ta\t1.00\nbroken\n"), map[string]string{"max_filter_ratio": "0.5"})
	wantFields(t, "within ratio", ok, map[string]any{"Status": "Success", "NumberTotalRows": 2.0, "NumberLoadedRows": 1.0, "NumberFilteredRows": 1.0})
	url, _ := ok["ErrorURL"].(string)
	if url == "" {
		t.Fatalf("no ErrorURL with a filtered row: %v", ok)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET ErrorURL: %v", err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(text), "actual column number in csv file is less than schema column number") ||
		!strings.Contains(string(text), "src line [broken]") {
		t.Errorf("error log %d: %s", resp.StatusCode, text)
	}
	fail := loadInto(t, s, "sales", "eu", strings.NewReader("2\tb\t2.00\nbroken\n"), nil)
	wantFields(t, "beyond ratio", fail, map[string]any{"Status": "Fail", "NumberFilteredRows": 1.0, "NumberLoadedRows": 0.0})
	wantContains(t, "beyond ratio", fail["Message"], "[DATA_QUALITY_ERROR]too many filtered rows")
	wantContains(t, "beyond ratio", fail["ErrorURL"], "/api/_load_error_log?file=")
	if n := countRows(t, s, "sales.eu"); n != "1" {
		t.Errorf("rows: %s, want 1", n)
	}
}
