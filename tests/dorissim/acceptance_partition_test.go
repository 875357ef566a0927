package dorissim

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// partEventsDDL is a day-partitioned DUPLICATE KEY table with RANDOM
// distribution, as Doris documents manual RANGE partitions.
const partEventsDDL = `CREATE TABLE sales.events (
    dt DATE NOT NULL,
    id BIGINT NOT NULL,
    v  VARCHAR(8)
)
DUPLICATE KEY(dt, id)
PARTITION BY RANGE(dt) (
    PARTITION p20260913 VALUES LESS THAN ("2026-09-14"),
    PARTITION p20260914 VALUES [("2026-09-14"), ("2026-09-15"))
)
DISTRIBUTED BY RANDOM BUCKETS 2
PROPERTIES ("binlog.enable" = "true", "binlog.format" = "ROW")`

func seedPartitioned(t *testing.T) (*Server, *fakeClock) {
	t.Helper()
	clock := newFakeClock(at("10:00:00"))
	s := startSim(t, Config{Clock: clock.Now})
	mustExecAll(t, s, "CREATE DATABASE sales", partEventsDDL,
		"INSERT INTO sales.events VALUES ('2026-09-13', 1, 'a'), ('2026-09-14', 2, 'b'), ('2026-09-14', 3, 'c')")
	return s, clock
}

// TestAcceptancePartitionRejectsRowWithoutPartition: an INSERT whose row is
// past every partition fails with Doris's strict-mode text carrying the
// BE's first error, "no partition for this tuple" (what Doris's regression
// suites expect from INSERT ... VALUES, e.g.
// regression-test/suites/datatype_p0/timestamptz/test_timestamptz_storage.groovy
// `exception "no partition for this tuple"`; the text is built by
// nereids/trees/plans/commands/insert/AbstractInsertExecutor.java,
// OlapInsertExecutor.onFail and InsertUtils.getFinalErrorMsg from the BE's
// be/src/exec/sink/vrow_distribution.cpp message), as MySQL error 1105
// (ERR_UNKNOWN_ERROR), and writes nothing; the same row is accepted once ADD
// PARTITION covers it.
func TestAcceptancePartitionRejectsRowWithoutPartition(t *testing.T) {
	s, _ := seedPartitioned(t)
	conn := mysqlConn(t, s)
	_, err := conn.ExecContext(testCtx(t), "INSERT INTO sales.events VALUES ('2026-09-14', 4, 'd'), ('2026-09-15', 5, 'e')")
	var me *mysql.MySQLError
	want := "errCode = 2, detailMessage = Insert has filtered data in strict mode. first_error_msg: " +
		`no partition for this tuple. tuple=[{"dt(DATE)":"2026-09-15","id(BIGINT)":"5","v(VARCHAR(8))":"e"}]. Src line: `
	if !errors.As(err, &me) || me.Number != 1105 || me.Message != want {
		t.Fatalf("insert past the last partition: %v\nwant %s", err, want)
	}
	if _, err := newFlightSession(t, s).text("INSERT INTO sales.events VALUES ('2026-10-01', 7, 'g')"); err == nil ||
		!strings.Contains(err.Error(), "no partition for this tuple") {
		t.Fatalf("insert past the last partition over Flight: %v", err)
	}
	if rows, _ := mysqlText(testCtx(t), conn, "SELECT COUNT(*) FROM sales.events"); rows[0][0] != "3" {
		t.Fatalf("a rejected INSERT wrote rows: count %v", rows)
	}
	mustExecAll(t, s, `ALTER TABLE sales.events ADD PARTITION p20260915 VALUES LESS THAN ("2026-09-16")`,
		"INSERT INTO sales.events VALUES ('2026-09-15', 5, 'e')")
	rows, err := mysqlText(testCtx(t), conn, "SHOW PARTITIONS FROM sales.events")
	if err != nil || len(rows) != 3 || rows[2][1] != "p20260915" ||
		rows[2][6] != "[types: [DATEV2]; keys: [2026-09-15]; ..types: [DATEV2]; keys: [2026-09-16]; )" {
		t.Fatalf("SHOW PARTITIONS after ADD PARTITION: %v %v", rows, err)
	}
}

// TestAcceptanceShowPartitions checks Doris's SHOW PARTITIONS columns and
// the values users read from them.
func TestAcceptanceShowPartitions(t *testing.T) {
	s, _ := seedPartitioned(t)
	conn := mysqlConn(t, s)
	want := "PartitionId,PartitionName,VisibleVersion,VisibleVersionTime,State,PartitionKey,Range,DistributionKey,Buckets," +
		"ReplicationNum,StorageMedium,CooldownTime,RemoteStoragePolicy,LastConsistencyCheckTime,DataSize,IsInMemory," +
		"ReplicaAllocation,IsMutable,SyncWithBaseTables,UnsyncTables,CommittedVersion,RowCount"
	if got := mysqlColumns(t, conn, "SHOW PARTITIONS FROM sales.events"); got != want {
		t.Fatalf("columns:\n got %s\nwant %s", got, want)
	}
	if _, err := mysqlText(testCtx(t), conn, "SHOW PARTITIONS FROM sales.events WHERE PartitionName = 'p20260914'"); err == nil {
		t.Error("SHOW PARTITIONS ... WHERE answered every partition instead of failing")
	}
	rows, _ := mysqlText(testCtx(t), conn, "SHOW PARTITIONS FROM sales.events;")
	if len(rows) != 2 {
		t.Fatalf("rows %v", rows)
	}
	for i, w := range []struct{ name, version, rng, count string }{
		{"p20260913", "2", "[types: [DATEV2]; keys: [0000-01-01]; ..types: [DATEV2]; keys: [2026-09-14]; )", "1"},
		{"p20260914", "2", "[types: [DATEV2]; keys: [2026-09-14]; ..types: [DATEV2]; keys: [2026-09-15]; )", "2"},
	} {
		r := rows[i]
		if r[1] != w.name || r[2] != w.version || r[4] != "NORMAL" || r[5] != "dt" || r[6] != w.rng ||
			r[7] != "RANDOM" || r[8] != "2" || r[9] != "1" || r[21] != w.count {
			t.Errorf("partition %d: %v", i, r)
		}
	}
	if id0, _ := strconv.ParseInt(rows[0][0], 10, 64); id0 <= 0 || rows[0][0] == rows[1][0] {
		t.Errorf("partition ids %s %s", rows[0][0], rows[1][0])
	}
	create, _ := mysqlText(testCtx(t), conn, "SHOW CREATE TABLE sales.events")
	clause := "PARTITION BY RANGE(`dt`)\n(PARTITION p20260913 VALUES [('0000-01-01'), ('2026-09-14')),\n" +
		"PARTITION p20260914 VALUES [('2026-09-14'), ('2026-09-15')))\nDISTRIBUTED BY RANDOM BUCKETS 2\n"
	if !strings.Contains(create[0][1], clause) {
		t.Errorf("SHOW CREATE TABLE lacks the partition clause:\n%s", create[0][1])
	}
}

// TestAcceptancePartitionTablets: _query_plan lists every partition's
// tablets, and TABLET(...) of one partition's tablets reads exactly its rows.
func TestAcceptancePartitionTablets(t *testing.T) {
	s, _ := seedPartitioned(t)
	info, err := s.Store().Table("sales", "events")
	if err != nil {
		t.Fatal(err)
	}
	_, data := httpDo(t, s, "POST", "/api/sales/events/_query_plan", "{\"sql\":\"select * from `sales`.`events`\"}", nil)
	var env struct {
		Data struct{ Partitions map[string]json.RawMessage }
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("query plan %s: %v", data, err)
	}
	var planned []int64
	for k := range env.Data.Partitions {
		id, _ := strconv.ParseInt(k, 10, 64)
		planned = append(planned, id)
	}
	sort.Slice(planned, func(a, b int) bool { return planned[a] < planned[b] })
	if fmt.Sprint(planned) != fmt.Sprint(info.TabletIDs) || len(planned) != 4 {
		t.Fatalf("query plan tablets %v, want every partition's %v", planned, info.TabletIDs)
	}
	fs := newFlightSession(t, s)
	for _, p := range info.Partitions {
		ids := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(p.TabletIDs)), ","), "[]")
		rows, err := fs.text("SELECT id FROM `sales`.`events`  TABLET(" + ids + ") ")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r[0])
		}
		sort.Strings(got)
		want := map[string]string{"p20260913": "1", "p20260914": "2,3"}[p.Name]
		if strings.Join(got, ",") != want {
			t.Errorf("TABLET(%s) of %s read %v, want %s", ids, p.Name, got, want)
		}
	}
}

// TestAcceptancePartitionStreamLoadFiltered: a stream load row that fits no
// partition is a filtered row under max_filter_ratio.
func TestAcceptancePartitionStreamLoadFiltered(t *testing.T) {
	s, _ := seedPartitioned(t)
	body := "2026-09-14\t10\tx\n2026-09-20\t11\ty\n"
	load := func(label, ratio string) map[string]any {
		hdr := map[string]string{"Expect": "100-continue", "label": label}
		if ratio != "" {
			hdr["max_filter_ratio"] = ratio
		}
		_, data := httpDo(t, s, "PUT", "/api/sales/events/_stream_load", body, hdr)
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("stream load answer %s: %v", data, err)
		}
		return out
	}
	res := load("strict", "")
	if res["Status"] != "Fail" || fmt.Sprint(res["NumberFilteredRows"]) != "1" ||
		!strings.Contains(fmt.Sprint(res["Message"]), "[DATA_QUALITY_ERROR]too many filtered rows") {
		t.Fatalf("load without max_filter_ratio: %v", res)
	}
	res = load("tolerant", "0.5")
	if res["Status"] != "Success" || fmt.Sprint(res["NumberLoadedRows"]) != "1" || fmt.Sprint(res["NumberFilteredRows"]) != "1" {
		t.Fatalf("load with max_filter_ratio 0.5: %v", res)
	}
}

// TestAcceptanceDropPartitionBinlog: DROP PARTITION removes the rows without
// any delete record, and the partition's earlier records leave @incr too.
func TestAcceptanceDropPartitionBinlog(t *testing.T) {
	s, clock := seedPartitioned(t)
	clock.Set(at("10:01:00"))
	mustExecAll(t, s, "ALTER TABLE sales.events DROP PARTITION p20260913")
	clock.Set(at("10:02:00"))
	conn := mysqlConn(t, s)
	rows, err := mysqlText(testCtx(t), conn, `SELECT id, __DORIS_BINLOG_OP__ FROM sales.events@incr("startTimestamp" = "2026-09-14 09:00:00",
		"endTimestamp" = "2026-09-14 10:02:00", "incrementType" = "APPEND_ONLY") ORDER BY id`)
	if err != nil || fmt.Sprint(rows) != "[[2 0] [3 0]]" {
		t.Fatalf("@incr after DROP PARTITION: %v %v", rows, err)
	}
	if rows, _ := mysqlText(testCtx(t), conn, "SELECT COUNT(*) FROM sales.events"); rows[0][0] != "2" {
		t.Fatalf("rows after DROP PARTITION: %v", rows)
	}
}

// TestAcceptanceAutoPartition: AUTO PARTITION BY RANGE (date_trunc(..,
// 'month')) creates p<yyyyMMddHHmmss> partitions as rows arrive.
func TestAcceptanceAutoPartition(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s, "CREATE DATABASE sales", `CREATE TABLE sales.auto_m (
		k0 DATETIME(3) NOT NULL, id INT NOT NULL) DUPLICATE KEY(k0)
		AUTO PARTITION BY RANGE (date_trunc(k0, 'month')) ()
		DISTRIBUTED BY HASH(id) BUCKETS 3`)
	conn := mysqlConn(t, s)
	if rows, err := mysqlText(testCtx(t), conn, "SHOW PARTITIONS FROM sales.auto_m"); err != nil || len(rows) != 0 {
		t.Fatalf("new AUTO table partitions: %v %v", rows, err)
	}
	mustExecAll(t, s, "INSERT INTO sales.auto_m VALUES ('2026-12-01 08:00:00.123', 1), ('2026-11-30 23:59:59', 2), ('2026-12-31 00:00:00', 3)")
	rows, _ := mysqlText(testCtx(t), conn, "SHOW PARTITIONS FROM sales.auto_m")
	var names []string
	for _, r := range rows {
		names = append(names, r[1]+"="+r[21])
	}
	if strings.Join(names, " ") != "p20261101000000=1 p20261201000000=2" {
		t.Fatalf("auto partitions %v", names)
	}
	info, _ := s.Store().Table("sales", "auto_m")
	if len(info.TabletIDs) != 6 {
		t.Fatalf("tablets %v, want 2 partitions × 3 buckets", info.TabletIDs)
	}
}
