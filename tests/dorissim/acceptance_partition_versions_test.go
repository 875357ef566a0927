package dorissim

import (
	"strings"
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// partitionVersionsSQL is what doris_binlog asks once per database per
// poll (docs/idle-tables.md).
const partitionVersionsSQL = "SELECT `TABLE_NAME`, `PARTITION_ID`, `COMMITTED_VERSION`, `VISIBLE_VERSION` " +
	"FROM `information_schema`.`partitions` WHERE `TABLE_SCHEMA` = 'sales' ORDER BY `TABLE_NAME`, `PARTITION_ID`"

// TestAcceptancePartitionVersions: information_schema.partitions has one
// row per partition with PARTITION_ID, COMMITTED_VERSION and
// VISIBLE_VERSION as Doris's MetadataGenerator.partitionsForInternalCatalog
// fills them (Partition.getCommittedVersion() = nextVersion - 1, moved at
// commit; getVisibleVersion(), moved at publish; a new partition at 1),
// over Flight and MySQL alike. A commit whose publish is held shows a
// committed version ahead of the visible one until the publish; a
// partition added, a truncation (new partition ids) and a table dropped
// and created again (new ids, versions from 1) show as Doris shows them.
func TestAcceptancePartitionVersions(t *testing.T) {
	s, _ := seedPartitioned(t)
	fs := newFlightSession(t, s)
	conn := mysqlConn(t, s)
	rows := func() [][]string {
		t.Helper()
		got, err := fs.text(partitionVersionsSQL)
		if err != nil {
			t.Fatal(err)
		}
		viaMySQL, err := mysqlText(testCtx(t), conn, partitionVersionsSQL)
		if err != nil {
			t.Fatal(err)
		}
		if !equalRows(got, viaMySQL) {
			t.Fatalf("Flight answered %v, MySQL %v", got, viaMySQL)
		}
		return got
	}
	ids := func(rs [][]string) string {
		var out []string
		for _, r := range rs {
			out = append(out, r[1])
		}
		return strings.Join(out, ",")
	}
	// The seed's one INSERT wrote both partitions: version 2 each.
	first := rows()
	if len(first) != 2 || first[0][0] != "events" || first[0][2] != "2" || first[0][3] != "2" || first[1][2] != "2" || first[1][3] != "2" {
		t.Fatalf("after one load: %v, want two partitions of events at committed = visible = 2", first)
	}

	hold, err := s.Store().HoldPublish("sales", "events")
	if err != nil {
		t.Fatal(err)
	}
	mustExecAll(t, s, "INSERT INTO sales.events VALUES ('2026-09-14', 9, 'z')")
	held := rows()
	if held[1][2] != "3" || held[1][3] != "2" || held[0][2] != "2" {
		t.Fatalf("with the publish held: %v, want p20260914 committed 3, visible 2, p20260913 untouched", held)
	}
	hold.Release()
	if published := rows(); published[1][2] != "3" || published[1][3] != "3" {
		t.Fatalf("after the publish: %v, want p20260914 at 3 and 3", published)
	}

	mustExecAll(t, s, `ALTER TABLE sales.events ADD PARTITION p20260915 VALUES [("2026-09-15"), ("2026-09-16"))`)
	added := rows()
	if len(added) != 3 || added[2][2] != "1" || added[2][3] != "1" || !strings.HasPrefix(ids(added), ids(first)) {
		t.Fatalf("after ADD PARTITION: %v, want a third partition with a new id at version 1", added)
	}

	mustExecAll(t, s, "TRUNCATE TABLE sales.events")
	truncated := rows()
	for i, r := range truncated {
		if r[1] == added[i][1] || r[2] != "1" || r[3] != "1" {
			t.Fatalf("after TRUNCATE: %v (before %v), want every partition replaced by a new id at version 1", truncated, added)
		}
	}

	mustExecAll(t, s, "DROP TABLE sales.events", partEventsDDL, "INSERT INTO sales.events VALUES ('2026-09-13', 1, 'a')")
	again := rows()
	if len(again) != 2 || again[0][1] == truncated[0][1] || again[0][2] != "2" || again[1][2] != "1" {
		t.Fatalf("after DROP and CREATE: %v, want new ids, p20260913 at 2 and p20260914 at 1", again)
	}
}

// TestAcceptancePartitionVersionsFlavors: a Doris before
// apache/doris#51025 has no PARTITION_ID or version columns, so the
// statement fails naming the column; in cloud mode COMMITTED_VERSION is
// -1 (CloudPartition.getCommittedVersion); a read the fault makes fail
// fails as a BE whose RPC to the master FE fails, once.
func TestAcceptancePartitionVersionsFlavors(t *testing.T) {
	s, _ := seedPartitioned(t)
	fs := newFlightSession(t, s)
	s.Store().SetPartitionsFlavor(storage.PartitionsLegacy)
	if _, err := fs.text(partitionVersionsSQL); err == nil || !strings.Contains(err.Error(), "PARTITION_ID") {
		t.Fatalf("legacy Doris: %v, want an error naming PARTITION_ID", err)
	}
	if got, err := fs.text("SELECT `TABLE_NAME`, `PARTITION_NAME` FROM `information_schema`.`partitions` WHERE `TABLE_SCHEMA` = 'sales'"); err != nil || len(got) != 2 {
		t.Fatalf("legacy Doris still lists partitions: %v, %v", got, err)
	}
	s.Store().SetPartitionsFlavor(storage.PartitionsCloud)
	got, err := fs.text(partitionVersionsSQL)
	if err != nil || len(got) != 2 || got[0][2] != "-1" || got[0][3] != "2" {
		t.Fatalf("cloud mode: %v, %v; want committed -1, visible 2", got, err)
	}
	s.Store().SetPartitionsFlavor(storage.PartitionsClassic)
	s.SetFaults(Faults{FailPartitionsReads: 1})
	if _, err := fs.text(partitionVersionsSQL); err == nil || !strings.Contains(err.Error(), "master FE") {
		t.Fatalf("injected failure: %v, want the read to fail", err)
	}
	if got, err := fs.text(partitionVersionsSQL); err != nil || len(got) != 2 {
		t.Fatalf("after the one failure: %v, %v", got, err)
	}
}
