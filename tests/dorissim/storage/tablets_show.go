package storage

import (
	"hash/crc32"
	"strconv"
	"strings"
)

// BackendID is the id of the simulator's one BE, which holds the one
// replica of every tablet. Doris hands out catalog ids from one counter
// starting at 10000; the simulator's tablets start above it.
const BackendID = firstTabletID - 1

// replicaIDOffset puts replica ids apart from tablet and partition ids:
// Doris allocates each replica its own catalog id.
const replicaIDOffset = 100_000_000

// ShowTabletsColumns is Doris's SHOW TABLETS header
// (fe/fe-core/src/main/java/org/apache/doris/common/proc/TabletsProcDir.java
// TITLE_NAMES, outside cloud mode).
var ShowTabletsColumns = []string{
	"TabletId", "ReplicaId", "BackendId", "SchemaHash", "Version", "LstSuccessVersion", "LstFailedVersion",
	"LstFailedTime", "LocalDataSize", "RemoteDataSize", "RowCount", "State", "LstConsistencyCheckTime",
	"CheckVersion", "VisibleVersionCount", "VersionCount", "QueryHits", "WindowAccessCount", "LastAccessTime",
	"PathHash", "Path", "MetaUrl", "CompactionStatus", "CooldownReplicaId", "CooldownMetaId",
}

// TabletReplica is one tablet's one replica as SHOW TABLETS lists it.
type TabletReplica struct {
	TabletID, ReplicaID, BackendID int64
	SchemaHash                     int64
	Version                        int64 // the partition's visible version: a healthy replica has it
	RowCount                       int64
}

// ShowRow renders the replica as TabletsProcDir prints a healthy one: never
// failed (LstFailedVersion -1, LstFailedTime \N), never consistency-checked,
// one rowset per version, no query statistics and no cooldown. beHostPort
// is the BE HTTP address of MetaUrl and CompactionStatus. The BE reports no
// data sizes to the simulator, so LocalDataSize and RemoteDataSize are 0.
func (r TabletReplica) ShowRow(beHostPort string) []string {
	id := strconv.FormatInt(r.TabletID, 10)
	v := strconv.FormatInt(r.Version, 10)
	return []string{
		id, strconv.FormatInt(r.ReplicaID, 10), strconv.FormatInt(r.BackendID, 10),
		strconv.FormatInt(r.SchemaHash, 10), v, v, "-1", `\N`, "0", "0",
		strconv.FormatInt(r.RowCount, 10), "NORMAL", `\N`, "-1", v, v, "0", "0", "0",
		strconv.FormatInt(simPathHash, 10), simStoragePath,
		"http://" + beHostPort + "/api/meta/header/" + id,
		"http://" + beHostPort + "/api/compaction/show?tablet_id=" + id, "-1", "",
	}
}

// The BE's one storage root, as SHOW PROC '/backends/<id>' would list it.
const simStoragePath = "/opt/apache-doris/be/storage"

var simPathHash = int64(crc32.ChecksumIEEE([]byte(simStoragePath)))

// SchemaHash is the schema hash of a table's base index, shared by all its
// tablets (_query_plan's schemaHash and SHOW TABLETS' SchemaHash).
func SchemaHash(db, table string, def TableDef) int64 {
	var sb strings.Builder
	sb.WriteString(db + "." + table)
	for _, c := range def.Columns {
		sb.WriteString("\x00" + c.Name + " " + c.Type.String())
	}
	return int64(crc32.ChecksumIEEE([]byte(sb.String())) & 0x7fffffff)
}

// TabletReplicas lists the replicas of a table's tablets, of every
// partition or of the named ones (SHOW TABLETS FROM ... PARTITION), in
// partition then bucket order. An unknown partition fails as Doris's
// ShowTabletsFromTableCommand does.
func (s *Store) TabletReplicas(db, table string, partitions []string) ([]TabletReplica, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.lookup(db, table)
	if err != nil {
		return nil, err
	}
	parts := t.parts
	if len(partitions) > 0 {
		parts = nil
		for _, name := range partitions {
			p := partitionNamed(t, name)
			if p == nil {
				return nil, errorf("Unknown partition: %s", name)
			}
			parts = append(parts, p)
		}
	}
	hash := SchemaHash(db, t.def.Name, t.def)
	var out []TabletReplica
	for _, p := range parts {
		for _, tb := range p.tablets {
			out = append(out, TabletReplica{
				TabletID: tb.id, ReplicaID: tb.id + replicaIDOffset, BackendID: BackendID, SchemaHash: hash,
				Version: p.version, RowCount: int64(len(tb.rows) + len(tb.dup)),
			})
		}
	}
	return out, nil
}

func partitionNamed(t *table, name string) *partition {
	for _, p := range t.parts {
		if strings.EqualFold(p.name, name) {
			return p
		}
	}
	return nil
}
