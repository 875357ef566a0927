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
	noDB := loadInto(t, s, "nodb", "lb", strings.NewReader("4\tnew\t4.00\n"), map[string]string{"label": "x"})
	wantFields(t, "unknown database", noDB, map[string]any{"Status": "Fail", "TxnId": -1.0,
		"Message": "[ANALYSIS_ERROR]TStatus: errCode = 2, detailMessage = Unknown database 'nodb'"})
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
	defer feed.Close() // ends the first load's body if the test stops early
	type answer struct {
		out map[string]any
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := tryViaFE(testCtx(t), s, "/api/sales/lr/_stream_load", body, map[string]string{"label": "slow-1"})
		done <- answer{out, err}
	}()
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
	first := <-done
	if first.err != nil {
		t.Fatal(first.err)
	}
	wantFields(t, "first load", first.out, map[string]any{"Status": "Success", "NumberLoadedRows": 1.0})
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

// TestAcceptanceStreamLoadFilterRatioHeader checks that max_filter_ratio is
// read as the BE reads it, with strtod (be/src/http/action/stream_load.cpp:
// ctx->max_filter_ratio = strtod(header, nullptr)): the leading number
// counts, and a value without one is ratio 0, not an error.
func TestAcceptanceStreamLoadFilterRatioHeader(t *testing.T) {
	s := startSim(t, Config{})
	ordersTable(t, s, "fr")
	ok := loadInto(t, s, "sales", "fr", strings.NewReader("1\ta\t1.00\nbroken\n"), map[string]string{"max_filter_ratio": " 0.5x"})
	wantFields(t, "ratio 0.5x", ok, map[string]any{"Status": "Success", "NumberLoadedRows": 1.0, "NumberFilteredRows": 1.0})
	fail := loadInto(t, s, "sales", "fr", strings.NewReader("2\tb\t2.00\nbroken\n"), map[string]string{"max_filter_ratio": "half"})
	wantFields(t, "ratio half", fail, map[string]any{"Status": "Fail", "NumberLoadedRows": 0.0, "NumberFilteredRows": 1.0})
	wantContains(t, "ratio half", fail["Message"], "[DATA_QUALITY_ERROR]too many filtered rows")
	clean := loadInto(t, s, "sales", "fr", strings.NewReader("3\tc\t3.00\n"), map[string]string{"max_filter_ratio": "half"})
	wantFields(t, "ratio half, nothing filtered", clean, map[string]any{"Status": "Success", "NumberLoadedRows": 1.0})
	if n := countRows(t, s, "sales.fr"); n != "2" {
		t.Errorf("rows: %s, want 2", n)
	}
}

// TestAcceptanceStreamLoadFaults checks the stream load faults a loader's
// retry logic is tested with: an HTTP 500 loads nothing, a lost answer has
// committed (the retry with its label finds FINISHED), and a publish
// timeout answers "Publish Timeout" for a committed load.
func TestAcceptanceStreamLoadFaults(t *testing.T) {
	s := startSim(t, Config{})
	ordersTable(t, s, "fl")
	setFaults := func(body string) {
		t.Helper()
		if code, data := httpDo(t, s, "POST", "/api/_sim/faults", body, nil); code != 200 {
			t.Fatalf("faults %s: %d %s", body, code, data)
		}
	}
	setFaults(`{"stream_load_http_errors": 1}`)
	be := "http://" + s.HTTPAddr() + "/api/_be/sales/fl/_stream_load"
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPut, be, strings.NewReader("1\ta\t1.00\n"))
	req.SetBasicAuth("root", "pw")
	req.Header.Set("label", "f-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("http error fault: HTTP %d", resp.StatusCode)
	}
	if st := loadState(t, s, "sales", "f-1"); st != "UNKNOWN" {
		t.Errorf("label after an HTTP 500: %s, want UNKNOWN", st)
	}
	setFaults(`{"stream_load_lost_answers": 1}`)
	if _, err := tryViaFE(testCtx(t), s, "/api/sales/fl/_stream_load", strings.NewReader("1\ta\t1.00\n"), map[string]string{"label": "f-1"}); err == nil {
		t.Error("lost answer fault: the load was answered")
	}
	retry := loadInto(t, s, "sales", "fl", strings.NewReader("1\ta\t1.00\n"), map[string]string{"label": "f-1"})
	wantFields(t, "retry after a lost answer", retry, map[string]any{"Status": "Label Already Exists", "ExistingJobStatus": "FINISHED"})
	setFaults(`{"stream_load_publish_timeouts": 1}`)
	pt := loadInto(t, s, "sales", "fl", strings.NewReader("2\tb\t2.00\n"), map[string]string{"label": "f-2"})
	wantFields(t, "publish timeout", pt, map[string]any{"Status": "Publish Timeout", "NumberLoadedRows": 1.0,
		"Message": "[PUBLISH_TIMEOUT]TStatus: transaction commit successfully, BUT data will be visible later"})
	if n := countRows(t, s, "sales.fl"); n != "2" {
		t.Errorf("rows: %s, want 2 (each load applied once)", n)
	}
}
