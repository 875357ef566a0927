package dorissim

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestAcceptanceShowTablets: SHOW TABLETS FROM [db.]table [PARTITION p]
// lists one row per replica with Doris's columns
// (fe/fe-core/src/main/java/org/apache/doris/common/proc/TabletsProcDir.java
// TITLE_NAMES and fetchComparableResult), ordered by TabletId, ReplicaId
// (nereids/trees/plans/commands/ShowTabletsFromTableCommand.java), with the
// partition's visible version and each tablet's row count.
func TestAcceptanceShowTablets(t *testing.T) {
	s, _ := seedPartitioned(t)
	conn := mysqlConn(t, s)
	want := "TabletId,ReplicaId,BackendId,SchemaHash,Version,LstSuccessVersion,LstFailedVersion,LstFailedTime," +
		"LocalDataSize,RemoteDataSize,RowCount,State,LstConsistencyCheckTime,CheckVersion,VisibleVersionCount," +
		"VersionCount,QueryHits,WindowAccessCount,LastAccessTime,PathHash,Path,MetaUrl,CompactionStatus," +
		"CooldownReplicaId,CooldownMetaId"
	if got := mysqlColumns(t, conn, "SHOW TABLETS FROM sales.events"); got != want {
		t.Fatalf("columns:\n got %s\nwant %s", got, want)
	}
	info, err := s.Store().Table("sales", "events")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := mysqlText(testCtx(t), conn, "SHOW TABLETS FROM sales.events")
	if err != nil || len(rows) != len(info.TabletIDs) {
		t.Fatalf("rows %v (err %v), want one per tablet %v", rows, err, info.TabletIDs)
	}
	rowsOf := map[string]int64{}
	replicas := map[string]bool{}
	for i, r := range rows {
		if r[0] != strconv.FormatInt(info.TabletIDs[i], 10) {
			t.Errorf("row %d tablet %s, want %d (TabletId order)", i, r[0], info.TabletIDs[i])
		}
		// Each partition got one INSERT after creation: visible version 2.
		if r[4] != "2" || r[5] != "2" || r[6] != "-1" || r[11] != "NORMAL" || r[2] != rows[0][2] || r[3] != rows[0][3] {
			t.Errorf("row %d: %v", i, r)
		}
		if replicas[r[1]] || r[1] == r[0] {
			t.Errorf("replica id %s of tablet %s is not its own", r[1], r[0])
		}
		replicas[r[1]] = true
		if !strings.HasSuffix(r[21], "/api/meta/header/"+r[0]) || !strings.HasSuffix(r[22], "/api/compaction/show?tablet_id="+r[0]) {
			t.Errorf("row %d urls %s %s", i, r[21], r[22])
		}
		n, _ := strconv.ParseInt(r[10], 10, 64)
		rowsOf[r[0]] = n
	}
	for _, p := range info.Partitions {
		var sum int64
		for _, id := range p.TabletIDs {
			sum += rowsOf[strconv.FormatInt(id, 10)]
		}
		if want := map[string]int64{"p20260913": 1, "p20260914": 2}[p.Name]; sum != want {
			t.Errorf("partition %s tablets hold %d rows, want %d", p.Name, sum, want)
		}
	}
	if _, err := conn.ExecContext(testCtx(t), "USE sales"); err != nil {
		t.Fatal(err)
	}
	part, err := mysqlText(testCtx(t), conn, "SHOW TABLETS FROM events PARTITION p20260914")
	if err != nil || len(part) != 2 || fmt.Sprint(part[0][0], ",", part[1][0]) != fmt.Sprint(info.Partitions[1].TabletIDs[0], ",", info.Partitions[1].TabletIDs[1]) {
		t.Errorf("SHOW TABLETS ... PARTITION p20260914: %v (err %v), want tablets %v", part, err, info.Partitions[1].TabletIDs)
	}
	if got, err := mysqlText(testCtx(t), conn, "SHOW TABLETS FROM sales.events PARTITIONS (p20260913, p20260914) WHERE Version = 2 AND State = 'NORMAL' LIMIT 1, 2"); err != nil ||
		len(got) != 2 || got[0][0] != rows[1][0] || got[1][0] != rows[2][0] {
		t.Errorf("PARTITIONS (...) WHERE ... LIMIT 1, 2: %v (err %v)", got, err)
	}
	if got, err := mysqlText(testCtx(t), conn, "SHOW TABLETS FROM sales.events WHERE BackendId = 1"); err != nil || len(got) != 0 {
		t.Errorf("WHERE BackendId = 1: %v (err %v)", got, err)
	}
	for q, msg := range map[string]string{
		"SHOW TABLETS FROM sales.events PARTITION p_none":   "Unknown partition: p_none",
		"SHOW TABLETS FROM sales.events WHERE RowCount = 1": "Where clause should looks like",
		"SHOW TABLETS FROM sales.nothing":                   "Unknown table",
	} {
		if _, err := mysqlText(testCtx(t), conn, q); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", q, err, msg)
		}
	}
}
