package dorissim

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// errorLog fetches an ErrorURL's text.
func errorLog(t *testing.T, url any) string {
	t.Helper()
	u, _ := url.(string)
	if u == "" {
		t.Fatalf("no ErrorURL")
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET ErrorURL: %v", err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET ErrorURL: HTTP %d: %s", resp.StatusCode, text)
	}
	return string(text)
}

// TestAcceptancePartitionLoadErrorURL: rows that fit no partition and rows
// the parser rejects are filtered together, counted in NumberFilteredRows,
// judged together against max_filter_ratio and listed in one error log
// with the BE's "no partition for this tuple" reason.
func TestAcceptancePartitionLoadErrorURL(t *testing.T) {
	s, _ := seedPartitioned(t)
	body := "2026-09-14\t10\tx\n2026-09-20\t11\ty\nbroken\n2026-09-13\t12\tz\n"
	ok := loadInto(t, s, "sales", "events", strings.NewReader(body), map[string]string{"max_filter_ratio": "0.5"})
	wantFields(t, "within ratio", ok, map[string]any{"Status": "Success", "NumberTotalRows": 4.0,
		"NumberLoadedRows": 2.0, "NumberFilteredRows": 2.0})
	text := errorLog(t, ok["ErrorURL"])
	wantContains(t, "error log", text, "src line [broken]")
	wantContains(t, "error log", text, `Reason: no partition for this tuple. tuple=[{"dt(DATE)":"2026-09-20","id(BIGINT)":"11","v(VARCHAR(8))":"y"}]. src line [];`)
	if n := countRows(t, s, "sales.events"); n != "5" {
		t.Errorf("rows after the tolerant load: %s, want 5", n)
	}
	// 2 of 4 filtered is over 0.4: the load fails, loads nothing, and still
	// lists the rows.
	fail := loadInto(t, s, "sales", "events", strings.NewReader(body), map[string]string{"max_filter_ratio": "0.4"})
	wantFields(t, "beyond ratio", fail, map[string]any{"Status": "Fail", "NumberFilteredRows": 2.0, "NumberLoadedRows": 0.0})
	wantContains(t, "beyond ratio", fail["Message"], "[DATA_QUALITY_ERROR]too many filtered rows")
	wantContains(t, "beyond ratio", errorLog(t, fail["ErrorURL"]), "no partition for this tuple")
	if n := countRows(t, s, "sales.events"); n != "5" {
		t.Errorf("a failed load wrote rows: count %s, want 5", n)
	}
}

// TestAcceptancePartitionTwoPhaseAndGroupCommit: a 2PC load and a group
// commit load into a partitioned table filter the rows without a partition
// and apply the others at commit; the label keeps the 2PC load's state.
func TestAcceptancePartitionTwoPhaseAndGroupCommit(t *testing.T) {
	s, _ := seedPartitioned(t)
	pre := loadInto(t, s, "sales", "events", strings.NewReader("2026-09-14\t20\tp\n2026-09-30\t21\tq\n"),
		map[string]string{"label": "part-2pc", "two_phase_commit": "true", "max_filter_ratio": "0.5"})
	wantFields(t, "pre-commit", pre, map[string]any{"Status": "Success", "TwoPhaseCommit": "true",
		"NumberLoadedRows": 1.0, "NumberFilteredRows": 1.0})
	wantContains(t, "pre-commit", errorLog(t, pre["ErrorURL"]), `"dt(DATE)":"2026-09-30"`)
	if n := countRows(t, s, "sales.events"); n != "3" {
		t.Errorf("pre-committed rows visible: count %s, want 3", n)
	}
	txn := fmt.Sprint(int64(pre["TxnId"].(float64)))
	wantFields(t, "commit", txn2PC(t, s, "sales", map[string]string{"txn_id": txn, "txn_operation": "commit"}),
		map[string]any{"status": "Success"})
	if n := countRows(t, s, "sales.events"); n != "4" {
		t.Errorf("rows after commit: %s, want 4", n)
	}
	if st := loadState(t, s, "sales", "part-2pc"); st != "VISIBLE" {
		t.Errorf("label state %s, want VISIBLE", st)
	}
	gc := loadInto(t, s, "sales", "events", strings.NewReader("2026-09-13\t30\tg\n2026-10-01\t31\th\n"),
		map[string]string{"group_commit": "sync_mode", "max_filter_ratio": "0.5"})
	wantFields(t, "group commit", gc, map[string]any{"Status": "Success", "GroupCommit": true,
		"NumberLoadedRows": 1.0, "NumberFilteredRows": 1.0})
	wantContains(t, "group commit", errorLog(t, gc["ErrorURL"]), `"dt(DATE)":"2026-10-01"`)
	if n := countRows(t, s, "sales.events"); n != "5" {
		t.Errorf("rows after the group commit: %s, want 5", n)
	}
	strict := loadInto(t, s, "sales", "events", strings.NewReader("2026-09-13\t40\ti\n2026-10-01\t41\tj\n"),
		map[string]string{"group_commit": "sync_mode"})
	wantFields(t, "strict group commit", strict, map[string]any{"Status": "Fail", "NumberFilteredRows": 1.0})
	if n := countRows(t, s, "sales.events"); n != "5" {
		t.Errorf("a failed group commit load wrote rows: count %s, want 5", n)
	}
}

// TestAcceptancePartitionSequenceAndDefaults: a partitioned UNIQUE table
// with a sequence column keeps the higher-sequence row, and a partial-column
// load fills the missing column with its default.
func TestAcceptancePartitionSequenceAndDefaults(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s, "CREATE DATABASE sales", `CREATE TABLE sales.ps (
    dt  DATE NOT NULL,
    id  BIGINT NOT NULL,
    st  VARCHAR(16) DEFAULT 'new',
    ver BIGINT
)
UNIQUE KEY(dt, id)
PARTITION BY RANGE(dt) (
    PARTITION p1 VALUES LESS THAN ("2026-09-15")
)
DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES ("enable_unique_key_merge_on_write" = "true", "function_column.sequence_col" = "ver")`)
	streamLoad(t, s, "ps", "2026-09-14\t1\tpaid\t20\n", nil)
	older := streamLoad(t, s, "ps", "2026-09-14\t1\tcreated\t10\n2026-09-20\t2\tlate\t10\n", map[string]string{"max_filter_ratio": "0.5"})
	wantFields(t, "older load", older, map[string]any{"NumberLoadedRows": 1.0, "NumberFilteredRows": 1.0})
	streamLoad(t, s, "ps", "2026-09-14\t3\t30\n", map[string]string{"columns": "dt,id,ver"})
	got, err := mysqlText(testCtx(t), mysqlConn(t, s), "SELECT id, st, ver FROM sales.ps ORDER BY id")
	if err != nil || !equalRows(got, [][]string{{"1", "paid", "20"}, {"3", "new", "30"}}) {
		t.Errorf("table: %v (%v), want (1, paid, 20) and (3, new, 30)", got, err)
	}
}
