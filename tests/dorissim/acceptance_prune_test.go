package dorissim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// planTablets posts a _query_plan statement and returns the planned
// tablet ids, sorted.
func planTablets(t *testing.T, s *Server, db, table, sql string) []int64 {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"sql": sql})
	_, data := httpDo(t, s, "POST", "/api/"+db+"/"+table+"/_query_plan", string(body), nil)
	var env struct {
		Code int
		Msg  string
		Data struct{ Partitions map[string]json.RawMessage }
	}
	if err := json.Unmarshal(data, &env); err != nil || env.Code != 0 {
		t.Fatalf("query plan %q: %s %v", sql, data, err)
	}
	var ids []int64
	for k := range env.Data.Partitions {
		id, _ := strconv.ParseInt(k, 10, 64)
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	return ids
}

// partitionTablets maps partition names to the tablets of those partitions.
func partitionTablets(t *testing.T, s *Server, db, table string, names ...string) []int64 {
	t.Helper()
	info, err := s.Store().Table(db, table)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, p := range info.Partitions {
		for _, n := range names {
			if p.Name == n {
				ids = append(ids, p.TabletIDs...)
			}
		}
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	return ids
}

// TestAcceptanceQueryPlanPrunesRangePartitions: _query_plan with a WHERE on
// the partition column lists only the tablets of the partitions that can
// hold a matching row, as Doris's planner prunes them (nereids
// rules/rewrite/PruneOlapScanPartition.java with
// rules/expression/rules/PartitionPruner.java and
// OneRangePartitionEvaluator.java: the predicate's value range on the
// partition column is intersected with each partition's [lower, upper)).
// What the simulator cannot evaluate keeps every partition.
func TestAcceptanceQueryPlanPrunesRangePartitions(t *testing.T) {
	s, _ := seedPartitioned(t)
	mustExecAll(t, s, `ALTER TABLE sales.events ADD PARTITION p20260915 VALUES LESS THAN ("2026-09-16")`)
	from := "select * from `sales`.`events` where "
	p13, p14, p15 := "p20260913", "p20260914", "p20260915"
	for _, c := range []struct {
		where string
		parts []string
	}{
		{"dt = '2026-09-14'", []string{p14}},
		{"`dt` = \"2026-09-13\"", []string{p13}},
		{"'2026-09-15' = dt", []string{p15}},
		{"dt < '2026-09-14'", []string{p13}},
		{"dt <= '2026-09-14'", []string{p13, p14}},
		{"dt > '2026-09-14'", []string{p14, p15}}, // p14 ends at 09-15, exclusive: Doris keeps it too
		{"dt >= '2026-09-15'", []string{p15}},
		{"dt >= '2026-09-16'", nil},
		{"dt BETWEEN '2026-09-14' AND '2026-09-14'", []string{p14}},
		{"dt IN ('2026-09-13', '2026-09-15')", []string{p13, p15}},
		{"dt >= '2026-09-14' AND dt < '2026-09-15' AND id > 1", []string{p14}},
		{"(dt = '2026-09-13' OR dt = '2026-09-15')", []string{p13, p15}},
		{"events.dt = '2026-09-14' AND v = 'b'", []string{p14}},
		// Not prunable by the simulator: every partition stays.
		{"dt != '2026-09-14'", []string{p13, p14, p15}},
		{"dt NOT IN ('2026-09-14')", []string{p13, p14, p15}},
		{"date_add(dt, INTERVAL 1 DAY) = '2026-09-15'", []string{p13, p14, p15}},
		{"dt = '2026-09-14' OR id = 1", []string{p13, p14, p15}},
		{"dt < '2026-09-14 12:00:00'", []string{p13, p14, p15}}, // DATE vs DATETIME: Doris widens
		{"id BETWEEN 1 AND 2", []string{p13, p14, p15}},
	} {
		got := planTablets(t, s, "sales", "events", from+c.where)
		want := partitionTablets(t, s, "sales", "events", c.parts...)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("WHERE %s: tablets %v, want those of %v: %v", c.where, got, c.parts, want)
		}
	}
	// The split read of a pruned plan still returns exactly the matching rows.
	ids := planTablets(t, s, "sales", "events", from+"dt = '2026-09-14'")
	fs := newFlightSession(t, s)
	list := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(ids)), ","), "[]")
	rows, err := fs.text("SELECT id FROM `sales`.`events`  TABLET(" + list + ")  WHERE dt = '2026-09-14'")
	if err != nil || len(rows) != 2 {
		t.Fatalf("read of the pruned tablets: %v %v", rows, err)
	}
}

// TestAcceptanceQueryPlanPrunesListPartitions: IN and = on a LIST partition
// column keep the partitions whose value lists hold a literal
// (OneListPartitionEvaluator).
func TestAcceptanceQueryPlanPrunesListPartitions(t *testing.T) {
	s := startSim(t, Config{})
	mustExecAll(t, s, "CREATE DATABASE sales", `CREATE TABLE sales.shops (
		region VARCHAR(8) NOT NULL, id INT NOT NULL) DUPLICATE KEY(region)
		PARTITION BY LIST(region) (
			PARTITION p_eu VALUES IN ("de", "fr"),
			PARTITION p_us VALUES IN ("us"),
			PARTITION p_jp VALUES IN ("jp"))
		DISTRIBUTED BY HASH(id) BUCKETS 2`)
	from := "SELECT id FROM `sales`.`shops` WHERE "
	for _, c := range []struct {
		where string
		parts []string
	}{
		{"region = 'fr'", []string{"p_eu"}},
		{"region IN ('us', 'jp') LIMIT 10", []string{"p_us", "p_jp"}},
		{"region > 'fr'", []string{"p_us", "p_jp"}},
		{"region = 'xx'", nil},
		{"region LIKE 'd%'", []string{"p_eu", "p_us", "p_jp"}},
	} {
		got := planTablets(t, s, "sales", "shops", from+c.where)
		want := partitionTablets(t, s, "sales", "shops", c.parts...)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("WHERE %s: tablets %v, want those of %v: %v", c.where, got, c.parts, want)
		}
	}
}
